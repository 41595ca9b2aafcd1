import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilTUI
import SybilWire

/// The terminal app's workspaces over one connection: listing desktops → projects →
/// sessions through the live desktop client, and opening a session the way
/// `sybil workspaces open` and `send` do — the host cache selects (mounts) it, its screen
/// model and live feed follow it, its composer sends through the outbox copy.
@MainActor
final class WorkspaceAppWiring {
    private let desktop: WorkspaceDesktopClient
    private let connection: ServerTarget.Connection
    private let common: ClientCommand.Common
    private let io: CommandIO
    private let cache: WorkspaceChatHostCache
    private let clock: AnyClock
    private var outbox: WorkspaceOutbox?
    /// The messages that left the outbox undelivered, kept across openings of their chat and
    /// between launches, beside the outbox copy (SPEC §2).
    let undelivered: WorkspaceUndeliveredMessages

    /// The workspaces over `connection`; hosts poll and screen models wait on `clock`.
    init(common: ClientCommand.Common, connection: ServerTarget.Connection, io: CommandIO, clock: AnyClock) {
        let desktop = WorkspacesCommand.desktop(connection)
        self.desktop = desktop
        self.connection = connection
        self.common = common
        self.io = io
        self.clock = clock
        cache = WorkspaceSessionParts.hostCache(desktop: desktop, clock: clock)
        undelivered = WorkspaceSessionParts.undelivered(common: common, environment: io.environment)
    }

    /// Desktops with their projects and sessions (offline desktops without them).
    func list() async -> Result<[SidebarDesktop], TerminalAppServices.WorkspacesProblem> {
        do {
            var desktops: [SidebarDesktop] = []
            for listed in try await desktop.desktops() {
                var entry = SidebarDesktop(id: listed.desktopId, name: listed.name, online: listed.online)
                if listed.online {
                    for project in try await desktop.projects(desktopId: listed.desktopId) {
                        let sessions = try await desktop.sessions(
                            desktopId: listed.desktopId, projectId: project.projectId)
                        entry.projects.append(
                            SidebarDesktop.Project(
                                id: project.projectId, name: project.name,
                                sessions: sessions.map {
                                    SidebarDesktop.Session(id: $0.sessionId, title: $0.title, running: $0.running)
                                }))
                    }
                }
                desktops.append(entry)
            }
            return .success(desktops)
        } catch {
            return .failure(TerminalAppServices.WorkspacesProblem("Workspaces unavailable: \(error)"))
        }
    }

    /// Why the outbox copy is in memory although it should be on disk, if it is.
    private(set) var outboxProblem: String?

    /// The outbox copy (opened once): on disk under `$XDG_DATA_HOME/sybil/client`, or in
    /// memory with `--in-memory` (and when the file cannot be opened, saying so).
    private func openOutbox() -> WorkspaceOutbox {
        if let outbox { return outbox }
        let opened: WorkspaceOutbox
        do {
            opened = try WorkspaceSessionParts.outbox(common: common, environment: io.environment)
        } catch {
            outboxProblem = "The outbox cannot be saved (\(error)); messages are kept in memory only."
            do {
                opened = try WorkspaceOutbox(store: InMemoryKeyValueStore())
            } catch {
                // An in-memory store does not fail.
                preconditionFailure("an in-memory outbox failed to open: \(error)")
            }
        }
        outbox = opened
        return opened
    }

    /// The app moved to the foreground or the background: the host cache marks the selected
    /// chat stale (its scheduler reloads it) or parks it.
    func setAppActive(_ active: Bool) {
        cache.setAppActive(active)
    }

    /// The host cache the app selects sessions in (its opening task commits the selection).
    var hosts: WorkspaceChatHostCache { cache }

    /// Opens `key`: selected in the host cache (the app has committed its selection already;
    /// selecting again would reload it), its screen model, live feed and composer.
    func open(_ key: WorkspaceChatKey, title: String) async -> WorkspaceSessionScreen {
        if cache.selectedKey != key { cache.select(key) }
        let host =
            cache.selectedHost
            ?? WorkspaceChatHost(key: key, rpc: desktop, clock: clock, random: SystemRandomSource())
        let screen = WorkspaceChatScreenModel(host: host, clock: clock)
        let feed = WorkspaceSessionParts.follow(host, screen: screen, cache: cache, connection: connection)
        // The app shows its own composer: each undelivered message is kept in the list, and the
        // app takes the first back into its composer when that can take it.
        let composer = WorkspaceSessionParts.composer(
            host: host, outbox: openOutbox(), desktop: desktop, environment: io.environment,
            undelivered: undelivered, restoresIntoDraft: false)
        // Owned by the session screen: closing it cancels a restore still running, and the app
        // waits for it to take back the text of a message the desktop rejected.
        let restore = Task { await composer.restore() }
        // Closing releases the selection only if no other chat was selected since: a screen
        // of this chat opened meanwhile keeps its host active.
        let selection = cache.selectionCount
        return WorkspaceSessionScreen(key: key, title: title, screen: screen, composer: composer, restoring: restore) {
            [cache] in
            await feed.stop()
            cache.deselect(ifNoSelectionSince: selection)
        }
    }
}
