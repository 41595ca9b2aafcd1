import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilTesting
import Testing

@testable import SybilServer

/// A store that cannot be used: at start-up the error names the file and what to do; at run
/// time a failing store is a 500 whose body carries no SQL, path or SQLite message (those go
/// to the server's log).
@Suite("Server stores: damaged files", .timeLimit(.minutes(2)))
struct DamagedStoreTests {
    private static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-damaged-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `sql` on `file` in `directory` through a connection of its own.
    private static func damage(_ directory: String, _ file: String, _ sql: String) throws {
        try SQLiteDatabase(.file(path: directory + "/" + file), busyTimeoutMilliseconds: 5_000).execute(sql)
    }

    @Test(
        "a file that is not a database stops the start with its path and what to do",
        arguments: ["agent-room.sqlite", "workspaces.sqlite", "records.sqlite"])
    func startUpNamesTheFileThatIsNotADatabase(file: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + file
        try Data(String(repeating: "this is not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
        var options = SybilServerOptions(token: "t")
        options.storage = .directory(directory)
        let time = ServerTime(clock: ManualClock()) { 0 }
        let error = try #require(throws: (any Error).self) {
            _ = try SybilServerApp(options: options, time: time)
        }
        let message = "\(error)"
        #expect(message.contains("'\(path)'"), "\(message)")
        #expect(message.contains("move it aside or restore it from a backup"), "\(message)")
        #expect(message.contains("not a database"), "\(message)")
        #expect(!message.contains("PRAGMA"), "\(message)")
    }

    @Test func aDataDirectoryThatIsAFileStopsTheStartNamingTheDatabase() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notAFolder = directory + "/data"
        try Data("x".utf8).write(to: URL(fileURLWithPath: notAFolder))
        var options = SybilServerOptions(token: "t")
        options.storage = .directory(notAFolder)
        let error = try #require(throws: (any Error).self) {
            _ = try SybilServerApp(options: options, time: ServerTime(clock: ManualClock()) { 0 })
        }
        let message = "\(error)"
        #expect(message.contains("'\(notAFolder)/agent-room.sqlite'"), "\(message)")
        #expect(
            message.hasSuffix(
                "make it and its folder readable and writable for this user, or start with another --data-dir"))
        #expect(!message.contains("NSCocoaErrorDomain"), "\(message)")
    }

    /// The lines the app logged.
    private final class LogLines: Sendable {
        let lines = Locked<[String]>([])
        var log: ServerLog { ServerLog { line in self.lines.withLock { $0.append(line) } } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// The app on `directory`, logging to `log`.
    private static func app(_ directory: String, _ log: LogLines) throws -> SybilServerApp {
        var options = SybilServerOptions(token: "t")
        options.storage = .directory(directory)
        options.pace = .zero
        return try SybilServerApp(options: options, time: ServerTime(clock: ManualClock()) { 0 }, log: log.log)
    }

    private static func send(_ app: SybilServerApp, _ method: String, _ target: String, json: String? = nil) async
        -> HTTPServerResponse
    {
        var headers = [("Authorization", "Bearer t")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return await app.handle(
            HTTPServerRequest(method: method, target: target, headers: headers, body: Array((json ?? "").utf8)))
    }

    @Test func aStoreFailingWithSQLIsAGeneric500AndTheCauseIsLogged() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = LogLines()
        let app = try Self.app(directory, log)
        #expect(await Self.send(app, "GET", "/records?limit=10").status == 200)
        try Self.damage(directory, "records.sqlite", "DROP TABLE records")

        let response = await Self.send(app, "GET", "/records?limit=10")
        #expect(response.status == 500)
        let body = String(decoding: response.bodyBytes ?? [], as: UTF8.self)
        for leak in ["SQLite", "SELECT", "no such table", directory, "records.sqlite"] {
            #expect(!body.contains(leak), "the body shows \(leak): \(body)")
        }
        #expect(try json(response)["error"]["code"] == "server_error")
        #expect(
            try json(response)["error"]["message"] == "The server could not complete this request; try again later.")
        #expect(log.all.count == 1)
        #expect(log.all.first?.hasPrefix("sybil serve: GET /records failed: SQLite error 1: no such table") == true)
        #expect(log.all.first?.contains("SELECT") == true)
    }

    @Test func aStoreFailingWithAPathIsAGeneric500AndThePathIsLogged() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = LogLines()
        let app = try Self.app(directory, log)
        try Self.damage(
            directory, "workspaces.sqlite", "UPDATE ws_sessions SET title = X'01' WHERE session_id = 'sess-42'")

        let response = await Self.send(
            app, "POST", "/v1/workspaces/rpc",
            json:
                #"{"method": "sessions.list", "callKey": null, "params": {"desktopId": "desk-1", "projectId": "proj-app"}}"#
        )
        #expect(response.status == 500)
        let body = String(decoding: response.bodyBytes ?? [], as: UTF8.self)
        for leak in [directory, "workspaces.sqlite", "ws_sessions", "blob"] {
            #expect(!body.contains(leak), "the body shows \(leak): \(body)")
        }
        #expect(log.all.first?.contains(directory + "/workspaces.sqlite") == true)
    }
}
