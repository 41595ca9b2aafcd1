#if canImport(Glibc)
    import Foundation
    import Testing

    /// `sybil records sync` against an OpenAI-compatible server this project did not write
    /// (fakellm, installed from PyPI by scripts/test): it offers no records, so the sync says
    /// so in one line with exit 69, sends no batch, and every record stays unsynced for a
    /// server that does. Skipped, saying why, when the package is not installed.
    @Suite("sybil records sync against a third-party server", .timeLimit(.minutes(2)))
    struct RecordsThirdPartyServerTests {
        @Test func aServerWithoutRecordsIsNamedAndNothingIsMarked() async throws {
            guard let (server, port) = try ThirdPartyPeer.fakellm(answering: "y") else { return }
            defer { server.stop() }
            let home = server.directory + "/home"
            let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"]
            #expect(await TestIO(environment: environment).run("records", "add", "mood", "4") == 0)
            let url = "http://127.0.0.1:\(port)/v1"
            for _ in 0..<2 {
                let sync = TestIO(environment: environment)
                #expect(await sync.run("records", "sync", "--api-url", url) == 69)
                #expect(sync.stderr.hasPrefix("sybil records sync: Records sync is not offered by "), "\(sync.stderr)")
                #expect(sync.stderr.split(separator: "\n").count == 1)
                #expect(sync.stdout.isEmpty)
            }
            let list = TestIO(environment: environment)
            #expect(await list.run("records", "list", "--unsynced") == 0)
            #expect(list.stdout.split(separator: "\n").count == 1)
            #expect(list.stderr == "sybil records list: 1 shown, 1 unsynced\n")
        }
    }
#endif
