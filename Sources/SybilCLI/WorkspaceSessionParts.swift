import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilServer
import SybilStore

/// The parts of a workspace chat every client path builds the same way — `sybil workspaces
/// open`, `sybil workspaces send` and the terminal app: the host cache over the live desktop
/// client, the outbox copy (on disk under `$XDG_DATA_HOME/sybil/client`, or in memory with
/// `--in-memory`), the composer joined to it with its sender and chunked uploader, and the
/// live feed that follows the desktop's events into a host and its screen model.
@MainActor
enum WorkspaceSessionParts {
    /// The host cache: a chat's host is made on first selection over `desktop`, polling on
    /// `clock`.
    static func hostCache(desktop: WorkspaceDesktopClient, clock: any Clock<Duration>) -> WorkspaceChatHostCache {
        WorkspaceChatHostCache { key in
            WorkspaceChatHost(key: key, rpc: desktop, clock: clock, random: SystemRandomSource())
        }
    }

    /// Opens the outbox copy: in memory with `--in-memory`, else the file store under the data
    /// directory. Throws when the file store cannot be opened.
    static func outbox(common: ClientCommand.Common, environment: [String: String]) throws -> WorkspaceOutbox {
        let store: any KeyValueStore =
            common.inMemory
            ? InMemoryKeyValueStore()
            : try FileKeyValueStore(directory: XDGDirectories(environment: environment).sybilData + "/client")
        return try WorkspaceOutbox(store: store)
    }

    /// The messages kept undelivered, beside the outbox copy: in memory with `--in-memory`; in
    /// memory saying why (`storeProblem`, which the app's status line names at launch) when the
    /// file store cannot be opened. A one-shot command passes `command` and `io`: the problem is
    /// then said on standard error, since that command has no status line.
    static func undelivered(
        common: ClientCommand.Common, environment: [String: String], command: String? = nil, io: CommandIO? = nil
    ) -> WorkspaceUndeliveredMessages {
        guard !common.inMemory else { return WorkspaceUndeliveredMessages() }
        let directory = XDGDirectories(environment: environment).sybilData + "/client"
        let list = WorkspaceUndeliveredMessages.opening(
            store: { try FileKeyValueStore(directory: directory) }, persistence: { .workspaces(in: $0) })
        if let problem = list.storeProblem, let command, let io {
            io.writeError(AgentCommand.notKeptLine(problem, command: command))
        }
        return list
    }

    /// The composer of `host`'s chat: sends through `outbox` with a sender over `desktop`,
    /// uploads attachments in chunks, staging them under the data directory. Messages that
    /// leave the outbox undelivered are kept in `undelivered` (the app passes one list for
    /// every opening), saved there by the sender before they leave the outbox; `restoresIntoDraft: false` for the app, which shows its own composer.
    static func composer(
        host: WorkspaceChatHost, outbox: WorkspaceOutbox, desktop: WorkspaceDesktopClient,
        environment: [String: String], undelivered: WorkspaceUndeliveredMessages? = nil,
        restoresIntoDraft: Bool = true
    ) -> WorkspaceChatComposer {
        composerAndSender(
            host: host, outbox: outbox, desktop: desktop, environment: environment, undelivered: undelivered,
            restoresIntoDraft: restoresIntoDraft
        ).composer
    }

    /// ``composer(host:outbox:desktop:environment:undelivered:restoresIntoDraft:)`` with the
    /// sender it sends through, for a caller that reports what the sender took out of the
    /// outbox undelivered.
    static func composerAndSender(
        host: WorkspaceChatHost, outbox: WorkspaceOutbox, desktop: WorkspaceDesktopClient,
        environment: [String: String], undelivered: WorkspaceUndeliveredMessages? = nil,
        restoresIntoDraft: Bool = true
    ) -> (composer: WorkspaceChatComposer, sender: WorkspaceOutboxSender) {
        let ids = RandomUUIDGenerator(source: SystemRandomSource())
        let now = ServerTime.live.epochMilliseconds
        let data = XDGDirectories(environment: environment).sybilData
        let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: data + "/staging")
        // Attachments that wait with their message are kept beside the outbox file.
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ContinuousClock(), ids: ids, now: now, uploader: uploader,
            staging: WorkspaceOutboxStaging(
                directory: WorkspaceOutboxStaging.directory(besideOutboxIn: data + "/client")),
            keptTexts: undelivered)
        let composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, uploader: uploader, ids: ids, now: now,
            restoresIntoDraft: restoresIntoDraft)
        return (composer, sender)
    }

    /// Follows the desktop's events for `host`'s chat: overlays go to `screen`, a reset marks
    /// every host of `cache` stale. Stop the returned feed when the chat closes.
    static func follow<C: Clock<Duration>>(
        _ host: WorkspaceChatHost, screen: WorkspaceChatScreenModel<C>, cache: WorkspaceChatHostCache,
        connection: ServerTarget.Connection
    ) -> WorkspaceLiveFeed {
        let feed = WorkspaceLiveFeed()
        let events = WorkspaceEventsClient(
            chat: host.key, baseURL: connection.baseURL, http: connection.http(), tokens: connection.tokens,
            clock: ContinuousClock(), random: SystemRandomSource())
        feed.follow(
            events.updates(), host: host, showOverlay: { screen.receiveOverlay($0) },
            everyHostStale: { cache.markEveryHostStale() })
        return feed
    }
}
