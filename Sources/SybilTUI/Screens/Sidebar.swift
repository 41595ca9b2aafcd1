import SybilClient
import SybilCore
import SybilWire

/// The sidebar's state: three sections (**Chats**, **Sybil Agent**, **Workspaces**) laid out
/// as rows, the selected row (the keyboard cursor) and the destination open in the main area.
/// Pure: the app feeds it the lists the view models publish and draws its rows.
public struct Sidebar: Sendable, Hashable {
    /// A saved chat as listed.
    public struct Chat: Sendable, Hashable {
        /// The conversation id.
        public var id: String
        /// Its title.
        public var title: String

        /// Creates a listed chat.
        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }
    }

    /// One row of the sidebar.
    public enum Row: Sendable, Hashable {
        /// A section title.
        case header(String)
        /// A row that opens a destination, with its label and an optional badge (unread count,
        /// "running").
        case item(AppDestination, label: String, indent: Int, badge: String?)
        /// A row that names something not openable (a desktop, a project, a notice).
        case label(String, indent: Int, tone: TimelineItem.Tone)

        /// The destination the row opens, if it opens one.
        public var destination: AppDestination? {
            if case .item(let destination, _, _, _) = self { destination } else { nil }
        }
    }

    /// The saved chats, newest first.
    public var chats: [Chat] = []
    /// The Agent room's unread count (shown while the room is not open).
    public var agentUnread = 0
    /// The desktops with their projects and sessions; `nil` while not loaded yet.
    public var workspaces: [SidebarDesktop]?
    /// Why the workspaces could not be listed, if they could not.
    public var workspacesProblem: String?
    /// The surfaces the server does not offer: each shows one line saying so instead of its
    /// rows (a plain OpenAI-compatible server offers chats only).
    public var notOffered: Set<ServerSurface> = []
    /// The destination open in the main area.
    public var current: AppDestination = .newChat
    /// The selected row's destination (the keyboard cursor).
    public var selection: AppDestination = .newChat

    /// An empty sidebar.
    public init() {}

    /// The sidebar's sentences about the server, in full (its narrow column cuts them): a
    /// surface not offered, why the workspaces could not be listed, each desktop offline. The
    /// status line shows them while the sidebar has focus.
    public var statusLines: [String] {
        var lines = [ServerSurface.agentRoom, .workspaces].filter(notOffered.contains).map(\.notOfferedLine)
        guard !notOffered.contains(.workspaces) else { return lines }
        if let workspacesProblem { lines.append(TerminalText.oneLine(workspacesProblem)) }
        for desktop in workspaces ?? [] where !desktop.online { lines.append("\(desktop.name) is offline") }
        return lines
    }

    /// The rows, top to bottom.
    public var rows: [Row] {
        var rows: [Row] = [.header("Chats"), .item(.newChat, label: "+ New chat", indent: 1, badge: nil)]
        for chat in chats {
            rows.append(.item(.chat(chat.id), label: chat.title, indent: 1, badge: nil))
        }
        let unread = current == .agent || agentUnread == 0 ? nil : "\(agentUnread)"
        rows.append(.header("Sybil Agent"))
        if notOffered.contains(.agentRoom) {
            rows.append(.label(ServerSurface.agentRoom.notOfferedLine, indent: 1, tone: .normal))
        } else {
            rows.append(.item(.agent, label: "Sybil Agent", indent: 1, badge: unread))
        }
        rows.append(.header("Workspaces"))
        if notOffered.contains(.workspaces) {
            rows.append(.label(ServerSurface.workspaces.notOfferedLine, indent: 1, tone: .normal))
            return rows
        }
        if let problem = workspacesProblem {
            rows.append(.label(problem, indent: 1, tone: .error))
        }
        guard let workspaces else {
            if workspacesProblem == nil { rows.append(.label("Loading…", indent: 1, tone: .normal)) }
            return rows
        }
        if workspaces.isEmpty, workspacesProblem == nil {
            rows.append(.label("No desktops", indent: 1, tone: .normal))
        }
        for desktop in workspaces {
            guard desktop.online else {
                rows.append(.label("\(desktop.name) (offline)", indent: 1, tone: .warning))
                continue
            }
            rows.append(.label(desktop.name, indent: 1, tone: .normal))
            for project in desktop.projects {
                rows.append(.label(project.name, indent: 2, tone: .normal))
                for session in project.sessions {
                    let key = WorkspaceChatKey(desktopId: desktop.id, projectId: project.id, sessionId: session.id)
                    rows.append(
                        .item(.session(key), label: session.title, indent: 3, badge: session.running ? "●" : nil))
                }
            }
        }
        return rows
    }

    /// The index of the selected row (the first selectable one when the selection is gone).
    public var selectedIndex: Int? {
        let rows = rows
        return rows.firstIndex { $0.destination == selection } ?? rows.firstIndex { $0.destination != nil }
    }

    /// Moves the selection `steps` selectable rows down (negative: up), stopping at the ends.
    public mutating func moveSelection(by steps: Int) {
        let selectable = rows.compactMap(\.destination)
        guard !selectable.isEmpty else { return }
        let index = selectable.firstIndex(of: selection) ?? 0
        selection = selectable[min(max(index + steps, 0), selectable.count - 1)]
    }

    /// Selects the first (`top`) or the last selectable row.
    public mutating func selectEnd(top: Bool) {
        let selectable = rows.compactMap(\.destination)
        if let end = top ? selectable.first : selectable.last { selection = end }
    }

    /// The first row shown when `height` rows fit: the selected row stays in view.
    public func firstVisibleRow(height: Int) -> Int {
        guard height > 0, let index = selectedIndex else { return 0 }
        return max(0, min(index - height / 2, rows.count - height))
    }
}
