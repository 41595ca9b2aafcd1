import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilWire

/// `sybil models`: the chosen server's `GET /v1/models`, one id per line or as JSON. An empty
/// list is said on standard error, with how to name a model instead (exit 0, as `sybil search`
/// with no matches).
enum ModelsCommand {
    static let name = "sybil models"

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: io.environment, spec: spec)
        else {
            io.writeOutput(spec.help)
            return .success
        }
        let asJSON = parsed.options.json
        guard let connection = await ClientCommand.connect(common, command: name, io: io) else { return .unavailable }
        let code = await list(asJSON: asJSON, connection: connection, io: io)
        await connection.close()
        return code
    }

    /// Lists the server's models over `connection`: ids one a line, or one JSON object.
    private static func list(asJSON: Bool, connection: ServerTarget.Connection, io: CommandIO) async -> ExitCode {
        let key = connection.sendsKey ? try? await connection.tokens.token() : nil
        let client = ModelListClient(
            baseURL: connection.baseURL, http: connection.http(), key: key ?? nil, headers: connection.headers,
            apiPrefix: connection.apiPrefix)
        let list: ModelList
        do {
            list = try await client.models()
        } catch {
            io.writeError("\(name): \(error)\n")
            switch error {
            case .unreachable: return .unavailable
            case .keyRefused: return .permissionDenied
            default: return .protocolError
            }
        }
        if asJSON {
            let models: [JSONValue] = list.models.map { model in
                .object(
                    JSONObject([
                        JSONMember("id", .string(model.id)),
                        JSONMember("created", model.created.map { .number(JSONNumber($0)) } ?? .null),
                        JSONMember("ownedBy", model.ownedBy.map(JSONValue.string) ?? .null),
                    ]))
            }
            io.writeOutput(
                JSONWriter().string(from: .object(JSONObject([JSONMember("models", .array(models))]))) + "\n")
        } else {
            for model in list.models { io.writeOutput(TerminalText.safe(model.id) + "\n") }
        }
        if list.models.isEmpty {
            // A fresh Ollama (nothing pulled) or a LiteLLM proxy without a model list: nothing is
            // wrong with the answer, but a chat needs a model named some other way.
            io.writeError(
                "\(name): \(connection.serverName) lists no models; name one with --model NAME (as `sybil ask --model NAME`) or as a profile's model (`sybil profile add PROFILE --model NAME`)\n"
            )
        }
        return .success
    }
}
