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
        var apiURL: URL?
        var token: String?
        var model: String
        var system: String?
        var seed: UInt64
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, environment: io.environment) else {
            io.writeOutput(HelpText.ask)
            return .success
        }
        var embedded: ReferenceServer?
        let baseURL: URL
        let token: String?
        if let apiURL = request.apiURL {
            baseURL = apiURL
            token = request.token
        } else {
            var options = SybilServerOptions(token: ServeCommand.randomToken())
            options.seed = request.seed
            options.pace = .milliseconds(15)
            do {
                let server = try ReferenceServer(options: options)
                embedded = server
                baseURL = server.baseURL
                token = options.token
                io.writeError("sybil ask: using the embedded server at \(server.baseURL.absoluteString)\n")
            } catch {
                io.writeError("sybil ask: cannot start the embedded server: \(error)\n")
                return .unavailable
            }
        }
        let status = await ask(request, baseURL: baseURL, token: token, io: io)
        await embedded?.shutdown()
        return status
    }

    private static func ask(_ request: Request, baseURL: URL, token: String?, io: CommandIO) async -> ExitCode {
        let http = URLSessionHTTPClient()
        let clock = ContinuousClock()
        let gate = await MainActor.run {
            WarmUpSendGate(manager: WarmUpManager(http: http, baseURL: baseURL, clock: clock))
        }
        let account = "sybil-ask"
        let tokens = TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(token.map { [account: $0] } ?? [:]), account: account))
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
        var apiURL = environment["SYBIL_API_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var token = environment["SYBIL_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        var model = SybilServerOptions.scriptedModel
        var system: String?
        var seed: UInt64 = 1
        while let next = cursor.next() {
            switch next {
            case .positional(let word): words.append(word)
            case .option(let option, let inline):
                switch option {
                case "-h", "--help": return nil
                case "--api-url": apiURL = try cursor.value(for: option, inlineValue: inline)
                case "--token": token = try cursor.value(for: option, inlineValue: inline)
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
        var url: URL?
        if let apiURL {
            guard let parsed = URL(string: apiURL), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host != nil
            else {
                throw UsageError(command: name, message: "--api-url needs an http: or https: URL, got '\(apiURL)'")
            }
            url = parsed
        }
        return Request(question: question, apiURL: url, token: token, model: model, system: system, seed: seed)
    }
}
