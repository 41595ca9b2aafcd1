import Foundation
import SybilCore
import SybilNet
import SybilServer
import SybilStore

/// `sybil ask QUESTION`: streams one reply to standard output through the client stack the
/// apps use (warm-up and send gate, token chain, SSE transport with its retry rules). Without
/// an API URL it starts the reference server in-process on a free loopback port.
enum AskCommand {
    static let name = "sybil ask"

    struct Request {
        var question: String
        var target: ServerTarget
        var model: String
        var system: String?
        var seed: UInt64
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, environment: io.environment) else {
            io.writeOutput(HelpText.ask)
            return .success
        }
        let connection = request.target.connect(command: name, io: io) { options in
            options.seed = request.seed
            options.pace = .milliseconds(15)
        }
        guard let connection else { return .unavailable }
        let status = await ask(request, baseURL: connection.baseURL, tokens: connection.tokens, io: io)
        await connection.close()
        return status
    }

    private static func ask(_ request: Request, baseURL: URL, tokens: TokenProvider, io: CommandIO) async -> ExitCode {
        let http = URLSessionHTTPClient()
        let clock = ContinuousClock()
        let gate = await MainActor.run {
            WarmUpSendGate(manager: WarmUpManager(http: http, baseURL: baseURL, clock: clock))
        }
        let service = ChatStreamingService(
            baseURL: baseURL, http: http, clock: clock, tokens: tokens, gate: gate, model: request.model)
        var messages: [ChatMessage] = []
        if let system = request.system { messages.append(ChatMessage(role: "system", content: system)) }
        messages.append(ChatMessage(role: "user", content: request.question))
        var wroteText = false
        do {
            for try await delta in service.reply(to: messages) {
                io.writeOutput(delta)
                wroteText = true
            }
            io.writeOutput("\n")
            return .success
        } catch {
            if wroteText { io.writeOutput("\n") }
            io.writeError("sybil ask: \(error)\n")
            switch error as? ChatStreamError {
            case .transport?, .serverError?: return .unavailable
            default: return .protocolError
            }
        }
    }

    /// The request for `arguments`, or `nil` when help was asked for.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        var cursor = ArgumentCursor(arguments, command: name)
        var words: [String] = []
        var target = ServerTarget(environment: environment)
        var model = SybilServerOptions.scriptedModel
        var system: String?
        var seed: UInt64 = 1
        while let next = cursor.next() {
            switch next {
            case .positional(let word): words.append(word)
            case .option(let option, let inline):
                switch option {
                case "-h", "--help": return nil
                case _ where try target.parse(option, inlineValue: inline, cursor: &cursor): continue
                case "--model": model = try cursor.value(for: option, inlineValue: inline)
                case "--system": system = try cursor.value(for: option, inlineValue: inline)
                case "--seed": seed = UInt64(try cursor.integer(for: option, inlineValue: inline, in: 0...Int.max))
                default: throw cursor.unknown(option)
                }
            }
        }
        let question = words.joined(separator: " ")
        guard !question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError(command: name, message: "needs a question, e.g. sybil ask \"What is a cold start?\"")
        }
        try target.validate(command: name)
        return Request(question: question, target: target, model: model, system: system, seed: seed)
    }
}
