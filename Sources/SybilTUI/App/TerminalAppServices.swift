import SybilClient
import SybilWire

/// The view models the terminal app is wired to, built by the command line over one server
/// connection: the chats list, the history search, the Agent room (composer, room, outbox) and
/// the workspaces (listing desktops → projects → sessions, opening a session).
@MainActor
public struct TerminalAppServices {
    /// Lists the workspaces and opens a session.
    public struct Workspaces {
        /// Lists the desktops with their projects and sessions, or says why not.
        public var list: @MainActor () async -> Result<[SidebarDesktop], WorkspacesProblem>
        /// Opens a session's screen (host mounted, live feed followed).
        public var open: @MainActor (WorkspaceChatKey, _ title: String) async -> WorkspaceSessionScreen
        /// The app moved to the foreground (`true`: the selected chat is marked stale and its
        /// scheduler reloads it) or the background (`false`: it is parked).
        public var setAppActive: @MainActor (Bool) -> Void
        /// The host cache the sessions are selected in (seed 000): a session chosen while a
        /// key is handled is only recorded there and committed by the opening task; Ctrl+R is
        /// an explicit refresh of the selected chat.
        public var hosts: WorkspaceChatHostCache?
        /// The sessions' messages kept undelivered, one list for every opening (the app names
        /// a list it could not read back or save).
        public var undelivered: WorkspaceUndeliveredMessages?

        /// Creates the workspace seam.
        public init(
            list: @escaping @MainActor () async -> Result<[SidebarDesktop], WorkspacesProblem>,
            open: @escaping @MainActor (WorkspaceChatKey, _ title: String) async -> WorkspaceSessionScreen,
            setAppActive: @escaping @MainActor (Bool) -> Void = { _ in }, hosts: WorkspaceChatHostCache? = nil,
            undelivered: WorkspaceUndeliveredMessages? = nil
        ) {
            self.list = list
            self.open = open
            self.setAppActive = setAppActive
            self.hosts = hosts
            self.undelivered = undelivered
        }
    }

    /// Why the workspaces could not be listed, as a sentence for the sidebar.
    public struct WorkspacesProblem: Error, Sendable, Hashable {
        /// The sentence.
        public var message: String

        /// Creates a problem.
        public init(_ message: String) {
            self.message = message
        }
    }

    /// The chats list (new, open, recent).
    public var chats: ChatListModel
    /// The history search behind Ctrl+K, on the clock the app was given.
    public var search: ChatSearchModel<AnyClock>
    /// The Agent room, if the server has one.
    public var agent: AgentRoomComposer?
    /// The workspaces, if the server has them.
    public var workspaces: Workspaces?
    /// The Quick Question panel's model, if there is one.
    public var quickQuestion: QuickQuestionModel?
    /// The device's records, if they could be opened.
    public var records: RecordsModel?
    /// Reads a saved web search for showing (`nil`: not saved), if history can hold them.
    public var webSearch: (@MainActor (String) async -> WebSearchScreen?)?
    /// Sends a question to the server's web-search route and saves the answer (the code
    /// `sybil ask --web` shares), if the app can.
    public var askWeb: (@MainActor (String) async -> WebSearchAsker.Outcome)?
    /// The Agent room's attachment originals (verified downloads) behind the timeline's preview
    /// (`v`) and export (`e`) keys, if the room is there.
    public var attachmentDownloads: AgentDownloads?
    /// The folder the export key saves originals to (the folder the app was started in).
    public var exportDirectory: String?
    /// What the server does not offer (``CapabilityDiscovery``): shown as not offered, never
    /// tried.
    public var notOffered: Set<ServerSurface> = []
    /// The header's words: the profile (or "demo") and the model.
    public var header: String?
    /// The header while a chat is open, for the chat's model (so a model picked for the chat
    /// shows); ``header`` when `nil`.
    public var chatHeader: (@MainActor (_ model: String) -> String)?
    /// The server's models and each chat's choice (`/model`, F6), if the app can list them.
    public var models: ChatModelPicker?
    /// Where an ordinary chat's staged files are kept between launches (none: in memory only).
    public var chatAttachmentDrafts: ChatAttachmentDraftStore?

    /// Creates the services.
    public init(
        chats: ChatListModel, search: ChatSearchModel<AnyClock>, agent: AgentRoomComposer?,
        workspaces: Workspaces?, quickQuestion: QuickQuestionModel? = nil, records: RecordsModel? = nil
    ) {
        self.records = records
        self.chats = chats
        self.search = search
        self.agent = agent
        self.workspaces = workspaces
        self.quickQuestion = quickQuestion
    }
}
