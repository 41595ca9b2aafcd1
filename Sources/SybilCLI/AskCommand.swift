import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilWire

/// `sybil ask QUESTION`: asks through the chat conversation model the apps use (warm-up and
/// send gate, token chain, SSE transport with its retry rules) and streams the reply to
/// standard output. The exchange is kept in the local history (`--no-save` keeps it in memory
/// only); `--continue` or `--chat ID` carries a saved conversation on. Without an API URL it
/// starts the reference server in-process on a free loopback port.
enum AskCommand {
    static let name = "sybil ask"

    /// Which conversation the question goes to.
    enum Conversation: Equatable {
        /// A new one.
        case new
        /// The most recently updated saved one.
        case latest
        /// The saved one with this id.
        case id(String)
    }

    struct Request {
        var question: String
        var target: ServerTarget
        /// `--model`; `nil` asks the profile's model, else the server's first listed one.
        var model: String?
        var system: String?
        var seed: UInt64
        var save = true
        var raw = false
        var conversation = Conversation.new
        /// Why standard input cannot be sent (checked before anything is), if it cannot.
        var refusal: AskInput.Refusal?
        /// `--web`: a web search instead of a chat.
        var web = false
        /// Whether the question holds text read from standard input (which cannot be typed again).
        var piped = false
        /// `--attach FILE` paths, in order (read by ``run(_:io:)`` before anything is sent).
        var attachmentPaths: [String] = []
        /// The most bytes of text the question and its text files may have together.
        var textLimit = AskInput.maximumBytes
        /// `--timeout`: seconds to wait for the reply; `nil` keeps the profile's, else the default.
        var timeout: Int?
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let parsed = try spec.parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        let output = try output(of: parsed.options)
        var request = try request(parsed, environment: io.environment, input: io)
        if let refusal = request.refusal {
            io.writeError("\(name): \(refusal.message)\n")
            return refusal.exitCode
        }
        if request.web { return await web(request, json: output.json, io: io) }
        // The files are read before the history is opened or a connection made: a file that
        // cannot be attached sends nothing and saves nothing.
        let attachments: [ChatAttachment]
        switch ChatAttachmentFile.read(
            request.attachmentPaths, textLimit: request.textLimit, reservedText: request.question.utf8.count)
        {
        case .success(let read): attachments = read
        case .failure(let refusal):
            io.writeError("\(name): \(refusal.message)\n")
            return refusal.isUnreadable ? .noInput : .invalidData
        }
        guard let store = ChatHistoryLocation.store(keeping: request.save, io: io, command: name) else {
            return .cannotCreate
        }
        guard let connection = ChatClientStack.connect(request.target, seed: request.seed, command: name, io: io)
        else { return .unavailable }
        // A continued conversation asks the model it was saved with, unless --model is given.
        let saved = request.model == nil ? await savedModel(of: request.conversation, in: store) : nil
        let model: String
        if let saved {
            model = saved
        } else {
            model = await ChatClientStack.model(given: request.model, connection: connection, command: name, io: io)
        }
        request.model = model
        // A profile's prompt starts new chats; a continued one keeps the prompt saved with it.
        if case .new = request.conversation { request.system = request.system ?? connection.profile?.system }
        let status = await ask(
            request, attachments: attachments, output: output, model: model, store: store, connection: connection,
            io: io)
        await connection.close()
        return status
    }

    @MainActor
    private static func ask(
        _ request: Request, attachments: [ChatAttachment] = [], output: Output, model chosenModel: String,
        store: any ChatHistoryStore,
        connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        let stack = ChatClientStack(connection: connection, timeout: request.timeout)
        let printer = ReplyPrinter(
            terminal: TerminalOutput(io: io), raw: request.raw, showReasoning: output.showReasoning,
            write: io.writeOutput)
        let indicator = waitingIndicator(io: io, stack: stack)
        let echo = EchoingChatStream(stack.streaming(model: chosenModel)) { delta in
            if !delta.text.isEmpty || !delta.reasoning.isEmpty { indicator?.stop() }
            if !output.json { printer.receive(delta) }
        }
        let list = ChatListModel(
            streaming: echo, store: store, model: chosenModel, now: ChatClientStack.now, ids: ChatClientStack.ids,
            warmUp: stack.warmUp, systemPrompt: request.system)
        guard let model = await open(request.conversation, in: list, io: io) else { return .noInput }
        // `--model` on a continued conversation: it asks that model from now on.
        if model.model != chosenModel, !(await model.select(model: chosenModel)) {
            io.writeError("\(name): \(model.lastError ?? "the model choice could not be saved")\n")
        }
        // Ctrl+C (or SIGTERM) stops the reply the way the app's Stop button does: what arrived
        // is kept and saved as stopped.
        let interrupt = Task { @MainActor in
            await io.waitForTermination()
            if !Task.isCancelled { model.stop() }
        }
        let attempt = Attempt(model)
        indicator?.start()
        let sent = await model.send(request.question, attachments: attachments)
        interrupt.cancel()
        await indicator?.finish()
        printer.finish()
        io.writeError(toolCallNotes(echo.summary.toolCalls))
        let reply = model.messages.last.flatMap { $0.role == .assistant ? $0 : nil }
        if sent, case .failed(let reason)? = reply?.state, echo.failure != nil, !stack.requests.mayHaveReachedServer {
            let status = echo.failureExitCode
            if output.json {
                let result = result(of: reply, summary: echo.summary, model: chosenModel, conversationId: nil)
                io.writeOutput(JSONWriter().string(from: result.jsonValue) + "\n")
            }
            io.writeError("\(name): \(reason)\(profileNote(status, connection))\n")
            await unsent(request, attempt: attempt, model: model, store: store, io: io)
            return status
        }
        if request.save, let id = model.conversationId {
            io.writeError("\(name): conversation \(id)\n")
        }
        if output.json, sent, reply != nil {
            let result = result(
                of: reply, summary: echo.summary, model: chosenModel, conversationId: model.conversationId)
            io.writeOutput(JSONWriter().string(from: result.jsonValue) + "\n")
        }
        guard sent, let reply else {
            io.writeError("\(name): \(model.lastError ?? "nothing was sent")\n")
            return .cannotCreate
        }
        switch reply.state {
        case .complete where model.lastError == nil:
            if echo.summary.finishReason == .length { io.writeError("\(name): \(lengthNote)\n") }
            return .success
        case .complete, .streaming:
            io.writeError("\(name): \(model.lastError ?? "the reply was not saved")\n")
            return .cannotCreate
        case .stopped:
            io.writeError("\(name): the reply was stopped; what arrived is saved\n")
            return .interrupted
        case .failed(let reason):
            let status = echo.failure == nil ? ExitCode.protocolError : echo.failureExitCode
            io.writeError(
                "\(name): \(reason)\(profileNote(status, connection))\(timeoutNote(echo.failure))"
                    + "\(prefixNote(echo.failure, connection))\n")
            return status
        }
    }

    /// For a 404 from a base URL with a path of its own whose prefix nobody stated (`--api-url`,
    /// `SYBIL_API_URL`, `OPENAI_BASE_URL`, or a profile without `api_prefix`): the routes went
    /// under `/v1`, and the base URL may be the whole prefix as the OpenAI SDKs take it.
    static func prefixNote(_ failure: (any Error)?, _ connection: ServerTarget.Connection) -> String {
        guard case .notFound? = failure as? ChatStreamError, connection.embedded == nil,
            connection.profile?.apiPrefix == nil, !ServerAddress.isPlain(connection.baseURL)
        else { return "" }
        let asked = TerminalText.oneLine(connection.apiPrefix.url(base: connection.baseURL, route: "").absoluteString)
        return " The routes were asked under \(asked); if the base URL is their whole prefix, as the OpenAI SDKs"
            + " take it (Gemini's …/v1beta/openai/), add it with `sybil profile add NAME --base-url URL`,"
            + " which finds where they are."
    }

    /// The model the conversation to continue was saved with, if it is saved with one (a
    /// conversation that cannot be read is reported when it is opened).
    private static func savedModel(of conversation: Conversation, in store: any ChatHistoryStore) async -> String? {
        let id: String?
        switch conversation {
        case .new: return nil
        case .latest: id = (try? await store.recentConversations(limit: 1))?.first?.id
        case .id(let given): id = given
        }
        guard let id else { return nil }
        return (try? await ChatModelPicker.savedModel(ofConversation: id, in: store)) ?? nil
    }

    /// For a reply that timed out: how to wait longer.
    private static func timeoutNote(_ failure: (any Error)?) -> String {
        guard case .stalled? = failure as? ChatStreamError else { return "" }
        return " A slow model may need a longer --timeout SECONDS (or the profile's timeout)."
    }

    /// For a refused key: which profile's key it was, so the person knows what to fix.
    private static func profileNote(_ status: ExitCode, _ connection: ServerTarget.Connection) -> String {
        status == .permissionDenied ? connection.profile.map { " (profile \($0.name))" } ?? "" : ""
    }

    /// The conversation the question goes to, opened through the chat list as the apps do, or
    /// `nil` when there is none to continue (the reason on standard error).
    @MainActor
    private static func open(
        _ conversation: Conversation, in list: ChatListModel, io: CommandIO
    ) async -> ChatConversationModel? {
        switch conversation {
        case .new:
            return await list.newChat()
        case .latest:
            await list.refresh()
            if let problem = list.lastError {
                io.writeError("\(name): \(problem)\n")
                return nil
            }
            guard let latest = list.conversations.first else {
                io.writeError("\(name): there is no saved conversation to continue; ask without --continue\n")
                return nil
            }
            return await open(.id(latest.id), in: list, io: io)
        case .id(let id):
            let model = await list.open(id)
            guard model.conversation != nil else {
                let reason =
                    model.lastError == ChatConversationModel.missingReason
                    ? "no saved conversation '\(id)'; `sybil history list` shows the saved ones"
                    : model.lastError ?? "cannot open the conversation '\(id)'"
                io.writeError("\(name): \(reason)\n")
                return nil
            }
            return model
        }
    }

    /// The request for `arguments`, or `nil` when help was asked for. Standard input is read
    /// from `input` when it is not a terminal (see ``AskInput``), after every argument is checked.
    static func parse(
        _ arguments: [String], environment: [String: String], input: CommandIO? = nil
    ) throws(UsageError) -> Request? {
        guard let parsed = try spec.parse(arguments) else { return nil }
        return try request(parsed, environment: environment, input: input)
    }

    /// The request `parsed` asks for, checked; standard input read from `input` as in
    /// ``parse(_:environment:input:)``.
    private static func request(
        _ parsed: ParsedArguments<Options>, environment: [String: String], input: CommandIO?
    ) throws(UsageError) -> Request {
        let options = parsed.options
        var target = ServerTarget(environment: environment, options: options.server)
        var request = Request(
            question: "", target: target, model: options.model, system: options.system, seed: UInt64(options.seed))
        request.save = !options.noSave
        request.raw = options.raw
        request.web = options.web
        request.attachmentPaths = options.attach
        request.timeout = options.timeout
        if request.web {
            let others: [(given: Bool, name: String)] = [
                (options.continueLatest, "--continue"), (options.chat != nil, "--chat"),
                (options.model != nil, "--model"),
                (options.system != nil, "--system"), (options.raw, "--raw"),
                (options.showReasoning, "--show-reasoning"),
                (!options.attach.isEmpty, "--attach"), (options.timeout != nil, "--timeout"),
            ]
            if let other = others.first(where: \.given) {
                throw UsageError(command: name, message: "--web and \(other.name) exclude each other")
            }
        }
        var continued: [String] = []
        if options.continueLatest {
            request.conversation = .latest
            continued.append("--continue")
        }
        if let id = options.chat {
            request.conversation = .id(id)
            continued.append("--chat")
        }
        let words = parsed.positionals
        if Set(continued).count > 1 {
            throw UsageError(command: name, message: "--continue and --chat exclude each other")
        }
        if !request.save, let option = continued.first {
            throw UsageError(command: name, message: "--no-save and \(option) exclude each other")
        }
        try target.validate(command: name)
        request.target = target
        let limit = AskInput.Limit.of(target.choice?.profile)
        request.textLimit = limit.bytes
        guard let input, !input.inputIsTerminal else {
            request.question = try question(from: AskInput.readsOnlyInput(words) ? [] : words, command: name)
            if request.question.utf8.count > limit.bytes {
                request.refusal = .tooLarge(bytes: request.question.utf8.count, limit: limit)
            }
            return request
        }
        let typed = AskInput.readsOnlyInput(words) ? 0 : words.joined(separator: " ").utf8.count + 2
        let piped: [UInt8]
        switch AskInput.read(input, reserved: typed, limit: limit) {
        case .success(let read): piped = read.bytes
        case .failure(let refusal):
            request.refusal = refusal
            return request
        }
        switch AskInput.question(words: words, piped: piped, limit: limit) {
        case .success(let text?):
            request.question = text
            request.piped = !piped.isEmpty && text != words.joined(separator: " ")
        case .success(nil): request.question = try question(from: [], command: name)
        case .failure(let refusal): request.refusal = refusal
        }
        return request
    }
}
