import SybilCore
import SybilWire

/// A file staged with `/attach` for the next message of an ordinary chat: the attachment as
/// read, with an id so that a sent message unstages exactly the files it carried.
public struct StagedChatAttachment: Sendable, Hashable {
    /// Unique among the app's staged files.
    public var id: Int
    /// The file as it will be sent (text inline, images as image parts).
    public var attachment: ChatAttachment
}

/// An ordinary chat's staged attachments (seed 003: inline attachments in ordinary chats):
/// `/attach PATH` stages a file (the runner reads it), the list is drawn under the composer,
/// `/attachments` lists it in the status line, `/detach N` and `/detach all` remove files, and
/// a sent message unstages what it carried. The commands are read and resolved by
/// ``ComposerAttachments``, as in the Agent room.
extension TerminalApp {
    /// Whether the open screen is an ordinary chat.
    var isOrdinaryChat: Bool {
        switch sidebar.current {
        case .newChat, .chat: true
        case .agent, .session, .webSearch: false
        }
    }

    /// The staged files of the open screen: the chat's, or none on other screens.
    public var shownChatAttachments: [ChatAttachment] {
        isOrdinaryChat ? chatAttachments.map(\.attachment) : []
    }

    /// The rows drawn under the composer, `width` columns wide.
    func stagedAttachmentRows(width: Int) -> [String] {
        ComposerAttachments.stagedRows(shownChatAttachments, width: width)
    }

    /// Stages the files `/attach` read (`attachments`, in order); `refusals` are the sentences
    /// for the files that could not be attached. The notice says what happened.
    public mutating func stageChatAttachments(_ attachments: [ChatAttachment], refusals: [String]) {
        for attachment in attachments {
            chatAttachments.append(StagedChatAttachment(id: nextStagedAttachment, attachment: attachment))
            nextStagedAttachment += 1
        }
        if let refusal = refusals.first {
            let others = attachments.isEmpty ? "" : " (the other files are attached)"
            notice = "Not attached: \(TerminalText.oneLine(refusal))\(others). Return still sends the text."
        } else if attachments.count == 1, let attachment = attachments.first {
            let number = chatAttachments.count
            notice =
                "Attached \(TerminalText.oneLine(attachment.name)) (\(ComposerAttachments.detail(attachment))) "
                + "to the next message · /detach \(number) removes it"
        } else if !attachments.isEmpty {
            notice = "Attached \(attachments.count) files to the next message · /attachments lists them"
        }
    }

    /// Stages the files kept from the last launch (before anything is staged now); `notes` say
    /// what could not be kept.
    public mutating func restoreChatAttachments(_ attachments: [ChatAttachment], notes: [String]) {
        for attachment in attachments {
            chatAttachments.append(StagedChatAttachment(id: nextStagedAttachment, attachment: attachment))
            nextStagedAttachment += 1
        }
        if !notes.isEmpty {
            notice = notes.map(TerminalText.oneLine).joined(separator: " ")
        } else if !attachments.isEmpty {
            notice = "\(attachments.count) file(s) staged before are still attached · /attachments lists them"
        }
    }

    /// `/attachments`, `/detach N` or `/detach all` typed in an ordinary chat (`text` as typed,
    /// given back to the composer when the command is not understood).
    public mutating func chatDraftCommand(_ command: ComposerAttachments.DraftCommand, text: String) {
        let staged = chatAttachments
        switch ComposerAttachments.resolve(command, count: staged.count, empty: ComposerAttachments.noneStaged) {
        case .list:
            notice = ComposerAttachments.stagedListing(staged.map(\.attachment))
        case .refuse(let sentence):
            if case .invalid = command { restoreDraft(text) }
            notice = sentence
        case .remove(let index):
            chatAttachments.remove(at: index)
            notice = "Removed \(TerminalText.oneLine(staged[index].attachment.name)); it will not be sent."
        case .removeAll:
            chatAttachments = []
            notice = "Removed \(staged.count) attachment(s); none will be sent."
        }
    }

    /// Unstages the files a sent message carried (those with `ids`).
    public mutating func unstageChatAttachments(_ ids: Set<Int>) {
        chatAttachments.removeAll { ids.contains($0.id) }
    }
}
