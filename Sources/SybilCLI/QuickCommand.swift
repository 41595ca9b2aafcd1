import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore

/// `sybil quick QUESTION`: the Quick Question panel on the command line, through
/// ``QuickQuestionModel``: the prompt is typed and submitted with Return, the answer printed
/// as it arrives. The model is `--model`, else Quick Question's kept choice, else
/// `chat-latest`; `--open-in-chat` saves the exchange as a regular chat.
enum QuickCommand {
    static let name = "sybil quick"

    struct Request {
        var question = ""
        var target: ServerTarget
        var model: String?
        var remember = false
        var openInChat = false
        var raw = false
        var seed: UInt64 = 1
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, environment: io.environment) else {
            io.writeOutput(spec.help)
            return .success
        }
        let preferences: FileKeyValueStore
        do {
            preferences = try FileKeyValueStore.standard(environment: io.environment)
        } catch {
            io.writeError("\(name): cannot open the preferences: \(error)\n")
            return .cannotCreate
        }
        guard let store = ChatHistoryLocation.store(keeping: request.openInChat, io: io, command: name) else {
            return .cannotCreate
        }
        guard let connection = ChatClientStack.connect(request.target, seed: request.seed, command: name, io: io)
        else { return .unavailable }
        let status = await ask(request, preferences: preferences, store: store, connection: connection, io: io)
        await connection.close()
        return status
    }

    @MainActor
    private static func ask(
        _ request: Request, preferences: any KeyValueStore, store: any ChatHistoryStore,
        connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        let stack = ChatClientStack(connection: connection)
        var echoes: [EchoingChatStream] = []
        let printer = ReplyPrinter(terminal: TerminalOutput(io: io), raw: request.raw, write: io.writeOutput)
        let quick = QuickQuestionModel(
            preferences: preferences, store: store,
            makeStreaming: { choice in
                let echo = EchoingChatStream(stack.streaming(model: choice.model), write: printer.write)
                echoes.append(echo)
                return echo
            }, now: ChatClientStack.now, ids: ChatClientStack.ids, platform: .desktop)
        if let problem = quick.lastError { io.writeError("\(name): \(problem)\n") }
        if let model = request.model {
            quick.select(ChatModelChoice(provider: quick.choice.provider, model: model), remember: request.remember)
            if request.remember, let problem = quick.lastError {
                io.writeError("\(name): \(problem)\n")
                return .cannotCreate
            }
        }
        if request.model == nil,
            let listed = await listedModel(instead: quick.choice.model, connection: connection, io: io)
        {
            quick.select(ChatModelChoice(provider: quick.choice.provider, model: listed), remember: false)
        }
        quick.open()
        quick.type(request.question)
        quick.handleKey(.init(key: .return))
        await quick.waitForAnswer()
        let echo = echoes.last
        printer.finish()
        var status = ExitCode.success
        switch quick.answerState {
        case .complete?: break
        case .failed(let reason)?:
            io.writeError("\(name): \(reason)\n")
            status = echo?.failure == nil ? .protocolError : (echo?.failureExitCode ?? .protocolError)
        default:
            io.writeError("\(name): the answer did not finish\n")
            status = .protocolError
        }
        if request.openInChat {
            guard let id = await quick.openInChat() else {
                io.writeError("\(name): \(quick.lastError ?? "the chat could not be saved")\n")
                return .cannotCreate
            }
            io.writeError("\(name): saved as conversation \(id)\n")
        }
        return status
    }

    /// The model to ask instead of `model` (Quick Question's kept one, else chat-latest) when
    /// the server lists its models and `model` is not among them: the profile's model, else
    /// the server's first, named on standard error; `nil` keeps `model` (the embedded server,
    /// a listed model, or a list that cannot be had, where the request itself says what is
    /// wrong). Nothing is remembered.
    @MainActor
    private static func listedModel(instead model: String, connection: ServerTarget.Connection, io: CommandIO)
        async -> String?
    {
        guard connection.embedded == nil else { return nil }
        let key = connection.sendsKey ? (try? await connection.tokens.token()) ?? nil : nil
        let client = ModelListClient(
            baseURL: connection.baseURL, http: connection.http(), key: key, headers: connection.headers,
            apiPrefix: connection.apiPrefix)
        guard let listed = try? await client.models().models.map(\.id), !listed.isEmpty, !listed.contains(model)
        else { return nil }
        let chosen: String
        let why: String
        if let profileModel = connection.profile?.model {
            chosen = profileModel
            why = "the profile's model"
        } else {
            chosen = listed[0]
            why = "the server's first model"
        }
        io.writeError(
            "\(name): the server does not list \(TerminalText.oneLine(model)); asking \(TerminalText.oneLine(chosen)),"
                + " \(why) (choose with --model)\n")
        return chosen
    }

    /// The request for `arguments`, or `nil` when help was asked for.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let parsed = try spec.parse(arguments) else { return nil }
        let options = parsed.options
        var target = ServerTarget(environment: environment, options: options.server)
        var request = Request(target: target)
        if let model = options.model {
            guard !model.allSatisfy(\.isWhitespace), model.utf8.count <= ChatModelChoice.maximumNameBytes else {
                throw UsageError(
                    command: name, message: "--model needs a name of 1 to \(ChatModelChoice.maximumNameBytes) bytes")
            }
            request.model = model
        }
        request.remember = options.remember
        request.openInChat = options.openInChat
        request.raw = options.raw
        request.seed = UInt64(options.seed)
        let words = parsed.positionals
        if request.remember && request.model == nil {
            throw UsageError(command: name, message: "--remember-model needs --model NAME")
        }
        request.question = try question(from: words, command: name)
        try target.validate(command: name)
        request.target = target
        return request
    }
}
