import Foundation
import SybilClient
import SybilServer
import SybilStore
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil records add|list|sync`: records saved offline first, listed with their state, and
/// synced over real sockets to the embedded server (whose data persists) or a given one.
@Suite("sybil records", .timeLimit(.minutes(2)))
struct RecordsCommandTests {
    private static let token = "records-token"

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-records-\(UUID().uuidString)")
    }

    private func io(data: URL, _ extra: [String: String] = [:]) -> TestIO {
        TestIO(environment: ["XDG_DATA_HOME": data.path].merging(extra) { $1 })
    }

    @Test(
        "records help is printed verbatim",
        arguments: [
            (["records"], "records-help.txt"),
            (["records", "--help"], "records-help.txt"),
            (["records", "add", "--help"], "records-add-help.txt"),
            (["records", "add", "mood", "4", "-h"], "records-add-help.txt"),
            (["records", "list", "--help"], "records-list-help.txt"),
            (["records", "list", "--unsynced", "-h"], "records-list-help.txt"),
            (["records", "sync", "--help"], "records-sync-help.txt"),
        ])
    func help(arguments: [String], file: String) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden(file)))
        #expect(test.stderr == "")
    }

    @Test func oneRecordIsCountedInTheSingular() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let add = io(data: data)
        #expect(await add.run("records", "add", "breathing", "--seconds", "60", "--cycles", "1") == 0)
        #expect(add.stdout.hasPrefix("saved breathing 60 s, 1 cycle  "), "\(add.stdout)")
        #expect(add.stderr == "sybil records add: 1 unsynced; `sybil records sync` uploads it\n")
        let list = io(data: data)
        #expect(await list.run("records", "list") == 0)
        #expect(list.stdout.contains("  breathing 60 s, 1 cycle  "), "\(list.stdout)")
        let second = io(data: data)
        #expect(await second.run("records", "add", "mood", "3") == 0)
        #expect(second.stderr == "sybil records add: 2 unsynced; `sybil records sync` uploads them\n")
    }

    @Test func recordsAreSavedAndListedWithNoServer() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(await io(data: data).run("records", "add", "mood", "4", "--note", "calm") == 0)
        #expect(await io(data: data).run("records", "add", "breathing", "--seconds", "120", "--cycles=12") == 0)
        let meditation = io(data: data)
        #expect(await meditation.run("records", "add", "meditation", "--seconds", "600") == 0)
        #expect(meditation.stdout.hasPrefix("saved meditation 600 s  "))
        #expect(meditation.stderr.contains("3 unsynced"))
        #expect(await io(data: data).run("records", "add", "profile", "Ana", "L.") == 0)
        let list = io(data: data)
        #expect(await list.run("records", "list") == 0)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.contains(" UTC  ") && $0.contains("  unsynced  ") })
        let kinds = ["profile \"Ana L.\"", "meditation 600 s", "breathing 120 s, 12 cycles", "mood 4 \"calm\""]
        for (line, kind) in zip(lines, kinds) { #expect(line.contains("  \(kind)  "), "\(line)") }
        #expect(list.stderr == "sybil records list: 4 shown, 4 unsynced\n")
        let limited = io(data: data)
        #expect(await limited.run("records", "list", "--limit", "1") == 0)
        #expect(limited.stdout.split(separator: "\n").count == 1)
        #expect(FileManager.default.fileExists(atPath: data.path + "/sybil/client/records.sqlite"))
    }

    @Test(
        "values are range-checked before anything is saved",
        arguments: [
            ["mood", "0"], ["mood", "6"], ["mood"], ["mood", "4", "5"], ["breathing"],
            ["breathing", "--seconds", "0"], ["breathing", "--seconds", "86401"],
            ["breathing", "--seconds", "5", "--cycles", "-1"], ["breathing", "--seconds", "5", "--cycles", "10001"],
            ["meditation", "--seconds", "5", "--cycles", "3"], ["mood", "3", "--seconds", "5"],
            ["breathing", "--seconds", "5", "--note", "x"], ["sleep"], [], ["profile"],
            ["mood", "3", "--note", String(repeating: "n", count: 1_001)],
        ])
    func badValuesAreUsageErrors(arguments: [String]) async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let test = io(data: data)
        #expect(await test.run(["records", "add"] + arguments) == 64)
        #expect(test.stderr.hasPrefix("sybil records add: "))
        #expect(!FileManager.default.fileExists(atPath: data.path + "/sybil/client/records.sqlite"))
    }

    @Test func theEdgesOfEveryRangeAreAccepted() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        for arguments in [
            ["mood", "1"], ["mood", "5", "--note", String(repeating: "n", count: 1_000)],
            ["breathing", "--seconds", "1", "--cycles", "0"], ["breathing", "--seconds", "86400", "--cycles", "10000"],
            ["meditation", "--seconds", "1"], ["meditation", "--seconds", "86400"],
        ] {
            #expect(await io(data: data).run(["records", "add"] + arguments) == 0, "\(arguments)")
        }
        let name = String(repeating: "a", count: 101)
        let long = io(data: data)
        #expect(await long.run("records", "add", "profile", name) == 65)
        #expect(long.stderr.contains("displayName"))
    }

    @Test func syncUploadsToTheEmbeddedServerWhoseDataPersists() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(await io(data: data).run("records", "add", "mood", "2") == 0)
        #expect(await io(data: data).run("records", "add", "meditation", "--seconds", "300") == 0)
        let sync = io(data: data)
        #expect(await sync.run("records", "sync") == 0)
        #expect(sync.stdout == "synced 2 of 2 records (2 new, 0 already on the server), 0 rejected; 0 unsynced\n")
        let again = io(data: data)
        #expect(await again.run("records", "sync") == 0)
        #expect(again.stdout == "synced 0 of 0 records (0 new, 0 already on the server), 0 rejected; 0 unsynced\n")
        let list = io(data: data)
        #expect(await list.run("records", "list", "--unsynced") == 0)
        #expect(list.stdout == "")
        let server = try SQLiteDatabase(.file(path: data.path + "/sybil/embedded/records.sqlite"))
        #expect(try server.query("SELECT COUNT(*) FROM records") == [[.integer(2)]])
    }

    @Test func thereIsNoSyncToAnEmbeddedServerThatKeepsNothing() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(await io(data: data).run("records", "add", "mood", "3") == 0)
        // Marked synced by a server gone when the command ends, a record would never be sent again.
        let sync = io(data: data)
        #expect(await sync.run("records", "sync", "--in-memory") == 64)
        #expect(sync.stderr.hasPrefix("sybil records sync: unknown option '--in-memory'"), "\(sync.stderr)")
        #expect(sync.stdout == "")
        let list = io(data: data)
        #expect(await list.run("records", "list", "--unsynced") == 0)
        #expect(list.stdout.split(separator: "\n").count == 1)
    }

    @Test @MainActor func theAppGetsNoRecordsSyncWithAnEmbeddedServerThatKeepsNothing() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let test = io(data: data)
        for inMemory in [true, false] {
            var options = ClientCommand.Options()
            options.inMemory = inMemory
            let common = try ClientCommand.Common(environment: test.io.environment, options: options, command: "t")
            let connection = try #require(ClientCommand.connect(common, command: "t", io: test.io))
            #expect(
                (RecordsCommand.sync(with: connection, clock: AnyClock(ManualClock())) == nil) == inMemory,
                "in memory: \(inMemory)")
            await connection.close()
        }
    }

    @Test func syncTalksToAGivenServerAndKeepsRecordsWhenItIsUnreachable() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(await io(data: data).run("records", "add", "mood", "3") == 0)
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let refusing = try RefusingPort()
        let url = refusing.url.absoluteString
        let unreachable = io(data: data, ["SYBIL_API_URL": url, "SYBIL_TOKEN": Self.token])
        #expect(await unreachable.run("records", "sync") == 69)
        #expect(unreachable.stderr.hasSuffix("; 1 record stays unsynced\n"), "\(unreachable.stderr)")
        withExtendedLifetime(refusing) {}
        let live = try ReferenceServer(options: options)
        defer { Task { await live.shutdown() } }
        let wrongToken = io(data: data, ["SYBIL_API_URL": live.baseURL.absoluteString + "/api", "SYBIL_TOKEN": "nope"])
        #expect(await wrongToken.run("records", "sync") == 77, "\(wrongToken.stderr)")
        #expect(
            wrongToken.stderr.hasPrefix("sybil records sync: The server refused the key (HTTP 401): "),
            "\(wrongToken.stderr)")
        let sync = io(data: data, ["SYBIL_API_URL": live.baseURL.absoluteString + "/api", "SYBIL_TOKEN": Self.token])
        #expect(await sync.run("records", "sync") == 0)
        #expect(sync.stdout.hasPrefix("synced 1 of 1 record (1 new"), "\(sync.stdout)")
        #expect(sync.stderr == "")
    }
}
