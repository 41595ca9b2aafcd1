import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `wss:` against an independent TLS WebSocket peer (Python's standard library) with a
/// certificate made for the test. Skipped, saying why, when python3 or openssl is missing.
@Suite(
    "Secure WebSocket (wss:)",
    .enabled(
        if: SecurePeer.toolsAvailable,
        "python3 and openssl are needed to run a TLS peer; the ws: tests cover the protocol"))
struct SecureWebSocketTests {
    @Test func echoesOverTLSWithATrustedCertificate() async throws {
        let peer = try SecurePeer()
        defer { peer.stop() }
        let socket = try await SocketWebSocket.connect(
            to: URL(string: "wss://localhost:\(peer.port)/echo")!,
            options: WebSocketOptions(trustedCertificatesFile: peer.certificate), random: SeededRandomSource(seed: 1),
            clock: ManualClock())
        try socket.send(text: "über TLS")
        var received: [WebSocketIncoming] = []
        for try await item in socket.incoming { received.append(item) }
        #expect(received == [.text("über TLS"), .closed(code: 1000, reason: "")])
    }

    @Test func anUntrustedCertificateIsRefused() async throws {
        let peer = try SecurePeer()
        defer { peer.stop() }
        do {
            _ = try await SocketWebSocket.connect(
                to: URL(string: "wss://localhost:\(peer.port)/echo")!, random: SeededRandomSource(seed: 1),
                clock: ManualClock())
            Issue.record("connected to a server whose certificate nobody vouches for")
        } catch {
            #expect(String(describing: error).contains("TLS handshake with localhost failed"), "\(error)")
        }
    }

    @Test func theHostNameMustMatchTheCertificate() async throws {
        let peer = try SecurePeer()
        defer { peer.stop() }
        do {
            // The certificate names localhost only; the same server reached by its address fails.
            _ = try await SocketWebSocket.connect(
                to: URL(string: "wss://127.0.0.1:\(peer.port)/echo")!,
                options: WebSocketOptions(trustedCertificatesFile: peer.certificate),
                random: SeededRandomSource(seed: 1),
                clock: ManualClock())
            Issue.record("accepted a certificate for another host")
        } catch {
            #expect(
                String(describing: error).contains("TLS handshake with 127.0.0.1 failed: IP address mismatch"),
                "\(error)")
        }
    }
}

/// A certificate for localhost and the Python peer serving with it.
final class SecurePeer: Sendable {
    static var toolsAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && PythonPeer.python3 != nil
    }

    let directory: String
    let certificate: String
    let port: Int
    private let process: ChildProcess

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("sybil-tls-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let openssl = ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ], discardStandardError: true)
        guard openssl.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Peers/tls_websocket_echo.py"
        ).path
        process = try ChildProcess.spawn(PythonPeer.python3!, [script, certificate, key])
        guard let line = process.readLine(), let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.signal(SIGKILL)
            process.wait()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    func stop() {
        // SIGKILL: a child spawned from a concurrency thread may inherit a mask that blocks
        // SIGTERM.
        process.signal(SIGKILL)
        process.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
