#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil workspaces list` against a desktop whose names carry escape sequences, a line
    /// break forging a row and a right-to-left override: each name is shown on its own line,
    /// never obeyed.
    @Suite("sybil workspaces list against a hostile desktop", .timeLimit(.minutes(2)))
    struct WorkspacesListHostileTests {
        static let results: [String: String] = [
            "desktops.list":
                #"{"result":{"desktops":[{"desktopId":"d\u001b[2J","name":"Mac\u001b]0;owned\u0007\ndesk-9  Fake  online","online":true}]}}"#,
            "projects.list":
                #"{"result":{"projects":[{"projectId":"p","name":"App\u009b31m","folder":"/src/\u202egnp.exe"}]}}"#,
            "sessions.list":
                #"{"result":{"sessions":[{"sessionId":"s","title":"Fix\r\u2066login","updatedAt":0,"running":false}]}}"#,
        ]

        @Test func namesAreShownOnTheirLineNeverObeyed() async throws {
            // A Sybil server: 401 on the descriptor, the reference health answer.
            let server = try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /agent/descriptor ") {
                    connection.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
                    return
                }
                if request.requestLine.hasPrefix("GET /healthz ") {
                    let body = #"{"status":"ok"}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n\(body)")
                    return
                }
                let body = String(decoding: request.body, as: UTF8.self)
                guard let answer = Self.results.first(where: { body.contains(#""\#($0.key)""#) })?.value else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(answer.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n"
                        + answer)
            }
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-list-hostile-\(UUID())")
                .path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let test = TestIO(
                environment: [
                    "SYBIL_TOKEN": "t", "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config",
                ],
                terminal: (80, 24))
            #expect(await test.run("workspaces", "list", "--api-url", server.url.absoluteString) == 0, "\(test.stderr)")
            #expect(
                test.stdout == """
                    d\u{FFFD}[2J  Mac\u{FFFD}]0;owned\u{FFFD} desk-9  Fake  online  online
                      p  App\u{FFFD}31m  /src/\u{FFFD}gnp.exe
                        s  Fix\u{FFFD}\u{FFFD}login  updated 1970-01-01 00:00 UTC

                    """)
        }
    }
#endif
