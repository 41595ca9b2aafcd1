/// The ordinary chats' messages a person wrote that were not sent (a file in it could not be
/// attached, a reply was still arriving, it could not be saved) and whose text is not in a
/// composer, per chat: SPEC §2 "nothing lost". ``ChatListModel`` keeps them for the process.
public typealias ChatUndeliveredMessages = UndeliveredMessages<ChatPlace>
