import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilServer
import SybilStore
import SybilTUI

/// `sybil` on a terminal (or `sybil app`): the full-screen terminal app over the same view
/// models as the other commands — the chats list and conversation over `ChatClientStack`, the
/// history search, the Agent room through `AgentCommand.open`, the workspaces through the
/// live desktop client, the host cache, the screen model, the composer and the outbox.
/// Without `--api-url` the embedded reference server answers on loopback with its data
/// under `$XDG_DATA_HOME/sybil/embedded` (`--in-memory` for a throwaway one).
enum TerminalAppCommand {
    static let name = "sybil app"

    /// The header of the embedded server, a scripted demo.
    static let demoHeader = "demo: scripted replies, not a model — connect one with `sybil profile add`"

    struct Request {
        var common: ClientCommand.Common
        /// `--model`, when given.
        var model: String?
        var seed: UInt64
    }

    /// Whether `arguments` given to `sybil` itself are the app's options (`--in-memory`,
    /// `--api-url URL`, …): then `sybil` opens the app with them.
    static func takes(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        let names = spec.options.flatMap(\.names).filter { !["-h", "--help"].contains($0) }
        return names.contains { first == $0 || first.hasPrefix($0 + "=") }
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, environment: io.environment) else {
            io.writeOutput(spec.help)
            return .success
        }
        guard io.inputIsTerminal, io.outputIsTerminal else {
            io.writeError(
                "\(name): standard input and output must be a terminal; for scripts use sybil ask, sybil agent send or sybil workspaces send\n"
            )
            return .usage
        }
        // A dumb terminal (an editor's shell buffer, a serial console) cannot move the cursor
        // or switch screens: the app's frames would arrive as escape-sequence litter.
        if io.environment["TERM"] == "dumb" {
            io.writeError(
                "\(name): this terminal (TERM=dumb) cannot show a full-screen app; use sybil ask, sybil agent send or sybil workspaces send\n"
            )
            return .usage
        }
        guard let store = ChatHistoryLocation.store(keeping: !request.common.inMemory, io: io, command: name) else {
            return .cannotCreate
        }
        let connection = request.common.target.connect(command: name, io: io) { options in
            options.seed = request.seed
            options.pace = .milliseconds(15)
            options.storage =
                request.common.inMemory
                ? .inMemory : .directory(XDGDirectories(environment: io.environment).sybilData + "/embedded")
        }
        guard let connection else { return .unavailable }
        let status = await runApp(request, store: store, connection: connection, io: io)
        await connection.close()
        return status
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec) else {
            return nil
        }
        if let extra = parsed.positionals.first {
            throw parsed.error("takes no arguments, got '\(extra)'")
        }
        return Request(common: common, model: parsed.options.model, seed: UInt64(parsed.options.seed))
    }

    @MainActor
    private static func runApp(
        _ request: Request, store: any ChatHistoryStore, connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        let clock = ContinuousClock()
        let (services, agentScratch) = await services(
            request, store: store, connection: connection, io: io, clock: AnyClock(clock))
        let theme = ThemeChoice.resolve(environment: io.environment, reportedBackground: nil)
        let session = TerminalSession(
            device: TerminalDevice(), modes: .fullScreen, colors: theme.appearance != .monochrome)
        do {
            try session.start()
        } catch {
            session.stop()
            io.writeError("\(name): cannot set up the terminal: \(error)\n")
            return .unavailable
        }
        let controller = TerminalAppController(services: services, theme: theme, size: session.size)
        controller.setReduceMotion(ThemeChoice.reduceMotion(environment: io.environment))
        await controller.start()
        let runner = TerminalAppRunner(
            controller: controller, terminal: session, clock: clock, environment: io.environment)
        await runner.run()
        if let agentScratch { try? FileManager.default.removeItem(atPath: agentScratch) }
        return .success
    }

    /// The view models the app is wired to over `connection`: chats and search over `store`,
    /// the Agent room, the workspaces, Quick Question and the records; with the Agent room's
    /// scratch folder, removed when the app ends. Search, workspace hosts and their screens
    /// wait on `clock`.
    @MainActor
    static func services(
        _ request: Request, store: any ChatHistoryStore, connection: ServerTarget.Connection, io: CommandIO,
        clock: AnyClock
    ) async -> (TerminalAppServices, agentScratch: String?) {
        // What the server offers decides what the app shows: a plain OpenAI-compatible
        // server gets no Agent room, workspaces or records sync, only a line saying so.
        var connection = connection
        var capabilities = await connection.capabilities(io: io)
        connection.capabilities = capabilities
        let model = await ChatClientStack.model(given: request.model, connection: connection, command: name, io: io)
        let stack = ChatClientStack(connection: connection)
        // Each chat asks for its own model (kept with it; `/model` and F6 pick another).
        let chats = ChatListModel(
            streaming: stack.streaming(model: model), store: store, model: model,
            now: ChatClientStack.now, ids: ChatClientStack.ids, warmUp: stack.warmUp,
            streamingFor: { stack.streaming(model: $0) }, undelivered: chatUndelivered(request, io: io))
        let search = ChatSearchModel(store: store, clock: clock)
        var agentSession: AgentCommand.Session?
        if capabilities?.offers(.agentRoom) ?? true,
            case .success(let session) = await AgentCommand.open(
                request.common, connection: connection, command: name, io: io)
        {
            agentSession = session
            if connection.embedded == nil, case .rejected(404, _, _)? = await descriptorFailure(session.api) {
                // Remembered as a Sybil server, but the room is gone: ask the server again.
                let found = await ServerTarget.Connection.discovery(io: io, connectTimeout: connection.connectTimeout)
                    .refresh(
                        connection.discoveryServer)
                capabilities = found.capabilities
                if capabilities?.offers(.agentRoom) == false {
                    await session.close()
                    agentSession = nil
                }
            }
        }
        let notOffered = Set(ServerSurface.allCases.filter { capabilities?.offers($0) == false })
        let workspaces = WorkspaceAppWiring(common: request.common, connection: connection, io: io, clock: clock)
        // Quick Question keeps its model choice with the other preferences; without them
        // (unwritable data directory) it uses its default choice for this run.
        let preferences: any KeyValueStore =
            (try? FileKeyValueStore.standard(environment: io.environment)) ?? InMemoryKeyValueStore()
        let quick = QuickQuestionModel(
            preferences: preferences, store: store, makeStreaming: { stack.streaming(model: $0.model) },
            now: ChatClientStack.now, ids: ChatClientStack.ids, platform: .desktop)
        // Records live on this device; `s` in their overlay syncs them with this server (not
        // with an embedded one that keeps nothing).
        let recordsSync = notOffered.contains(.records) ? nil : RecordsCommand.sync(with: connection)
        let records = await RecordsCommand.model(command: name, io: io, sync: recordsSync)?.model
        var services = TerminalAppServices(
            chats: chats, search: search, agent: agentSession?.composer,
            workspaces: notOffered.contains(.workspaces)
                ? nil
                : TerminalAppServices.Workspaces(
                    list: workspaces.list, open: workspaces.open, setAppActive: workspaces.setAppActive,
                    hosts: workspaces.hosts, undelivered: workspaces.undelivered),
            quickQuestion: quick, records: records)
        services.notOffered = notOffered
        // v previews an attachment card, e exports its verified original into the folder the
        // app was started in (as sybil agent download does).
        if let agentSession {
            // Nothing is written there (exports go to the export folder); a fresh name all the same.
            let ids = RandomUUIDGenerator(source: SystemRandomSource())
            let scratch = NSTemporaryDirectory() + "sybil-app-exports-" + ids.makeID()
            services.attachmentDownloads = AgentDownloads(
                api: agentSession.api, exportDirectory: scratch, ids: ids)
            services.exportDirectory = FileManager.default.currentDirectoryPath
        }
        // Ctrl+Alt+N asks the web-search route and saves the answer as `sybil ask --web` does.
        if !notOffered.contains(.webSearch), let base = try? AgentAPIBase(connection.baseURL) {
            let asker = WebSearchAsker(
                client: WebSearchClient(
                    base: base, http: connection.http(redirects: .deliver), tokens: connection.tokens),
                store: store, ids: ChatClientStack.ids, now: ChatClientStack.now)
            services.askWeb = { await asker.ask($0) }
        }
        // A saved web search found by Ctrl+K opens with its query, answer and sources.
        services.webSearch = { id in
            guard let saved = try? await store.webSearch(id: id) else { return nil }
            return WebSearchScreen(query: saved.query, answer: saved.answer, sources: saved.sources)
        }
        services.chatAttachmentDrafts = chatAttachmentDrafts(request, connection: connection, io: io)
        services.header = header(connection, model: model)
        services.chatHeader = { header(connection, model: $0) }
        // The server's models are listed when `/model` or F6 first needs them, with the key
        // read then.
        let (base, fields, tokens, http, prefix) = (
            connection.baseURL, connection.headers, connection.sendsKey ? connection.tokens : nil, connection.http(),
            connection.apiPrefix
        )
        services.models = ChatModelPicker(defaultModel: model) {
            let key = (try? await tokens?.token()) ?? nil
            let client = ModelListClient(baseURL: base, http: http, key: key, headers: fields, apiPrefix: prefix)
            return try await client.models().models.map(\.id)
        }
        return (services, agentSession?.scratch)
    }

    /// Where an ordinary chat's staged files are kept between launches: beside the Agent room's
    /// draft, in the same kind of store, scoped to the server as the draft is; none with
    /// `--in-memory`.
    static func chatAttachmentDrafts(
        _ request: Request, connection: ServerTarget.Connection, io: CommandIO
    ) -> ChatAttachmentDraftStore? {
        guard !request.common.inMemory else { return nil }
        let scope = connection.storageScope
        let directory = XDGDirectories(environment: io.environment).sybilData + "/client/chat"
        return ChatAttachmentDraftStore(
            storage: AgentAttachmentFileStore(directory: directory, baseURL: scope, folder: "chat-attachments"))
    }

    /// The ordinary chats' texts kept undelivered: beside the chats' staged files, one list for
    /// the chat history (which is not per server), kept between launches (SPEC §2); in memory
    /// with `--in-memory`; in memory saying why (`storeProblem`, named at launch) when the
    /// folder cannot be made.
    @MainActor
    static func chatUndelivered(_ request: Request, io: CommandIO) -> ChatUndeliveredMessages {
        guard !request.common.inMemory else { return ChatUndeliveredMessages() }
        let directory = XDGDirectories(environment: io.environment).sybilData + "/client/chat"
        return .opening(store: { try FileKeyValueStore(directory: directory) }, persistence: { .chats(in: $0) })
    }

    /// The header: the demo's own sentence for the embedded server, else the profile (or the
    /// server's address) and the model.
    static func header(_ connection: ServerTarget.Connection, model: String) -> String {
        if connection.embedded != nil {
            return model == SybilServerOptions.scriptedModel ? demoHeader : "\(demoHeader) · \(model)"
        }
        let server =
            connection.profile?.name
            ?? (connection.baseURL.host ?? connection.baseURL.absoluteString)
            + (connection.baseURL.port.map { ":\($0)" } ?? "")
        return TerminalText.oneLine("\(server) · \(model)")
    }

    /// The room's descriptor failure, if asking for it fails.
    @MainActor
    private static func descriptorFailure(_ api: AgentRoomHTTPClient) async -> AgentRoomError? {
        do {
            _ = try await api.descriptor()
            return nil
        } catch {
            return error
        }
    }
}
