import Foundation
import SybilCore
import SybilHTTP

/// `sybil debug ws-echo URL`: a WebSocket echo client for conformance suites.
enum DebugWebSocketEchoCommand {
    static let name = "sybil debug ws-echo"

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let parsed = try spec.parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        let target = parsed.positionals.first
        let maximumMessage = parsed.options.maximumMessage
        guard let target, let url = URL(string: target), ["ws", "wss"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            throw UsageError(command: name, message: "needs a ws: or wss: URL, got '\(target ?? "")'")
        }
        return await echo(url, maximumMessage: maximumMessage, io: io)
    }

    private static func echo(_ url: URL, maximumMessage: Int, io: CommandIO) async -> ExitCode {
        #if canImport(Glibc)
            let socket: SocketWebSocket<ContinuousClock>
            do {
                socket = try await SocketWebSocket.connect(
                    to: url, options: WebSocketOptions(maximumMessage: maximumMessage), random: SystemRandomSource(),
                    clock: ContinuousClock())
            } catch {
                io.writeError("sybil: cannot open \(url.absoluteString): \(error)\n")
                return .unavailable
            }
            do {
                // The echo runs on the connection's I/O thread: one wake-up per message.
                try await withTaskExecutorPreference(socket.executor) {
                    for try await incoming in socket.incoming {
                        switch incoming {
                        case .text(let text):
                            io.writeError("text \(text.utf8.count) bytes\n")
                            try socket.send(text: text)
                        case .binary(let bytes):
                            io.writeError("binary \(bytes.count) bytes\n")
                            try socket.send(binary: bytes)
                        case .closed(let code, let reason):
                            io.writeError("closed \(code)\(reason.isEmpty ? "" : " \(reason)")\n")
                        }
                    }
                }
                return .success
            } catch {
                io.writeError("sybil: \(error)\n")
                return .protocolError
            }
        #else
            io.writeError("sybil: debug ws-echo needs the Linux WebSocket client on this platform\n")
            return .unavailable
        #endif
    }
}
