import Foundation
import SybilCore
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// `POST records/batch` over real sockets: a batch whose body breaks off stores nothing (the
/// client sends it again and it is stored once), and the body and count limits hold exactly at
/// their boundaries.
@Suite("Reference server: records over sockets", .timeLimit(.minutes(2)))
struct RecordsSocketTests {
    private static let token = "records-socket-token"

    private func start() throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        return try ReferenceServer(options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
    }

    private static func head(_ length: Int) -> [UInt8] {
        Array(
            ("POST /records/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n").utf8)
    }

    private static func batch(_ count: Int, padTo length: Int? = nil) throws -> [UInt8] {
        let records = try (0..<count).map {
            try Record(
                id: RecordsRoutesTests.id($0), createdAt: Int64($0), payload: .mood(score: 3, note: nil))
        }
        var bytes = JSONWriter().bytes(from: ["records": .array(records.map(\.jsonValue))])
        if let length { bytes += [UInt8](repeating: 0x20, count: length - bytes.count) }
        return bytes
    }

    private func post(_ server: ReferenceServer, _ body: [UInt8]) async throws
        -> (status: Int, headers: [String: String], body: [UInt8])?
    {
        let client = try RawClient(port: server.http.port)
        defer { client.close() }
        client.send(Self.head(body.count) + body)
        return await blocking { client.readResponse() }
    }

    private func count(_ server: ReferenceServer) async throws -> Int {
        let client = try RawClient(port: server.http.port)
        defer { client.close() }
        client.send("GET /records?limit=500 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\n\r\n")
        let response = try #require(await blocking { client.readResponse() })
        return try RecordPage.decode(try JSONReader().parse(response.body), at: .root).records.count
    }

    @Test func aBatchWhoseBodyBreaksOffStoresNothingAndItsRetryIsStoredOnce() async throws {
        let server = try start()
        let body = try Self.batch(3)
        let cut = try RawClient(port: server.http.port)
        cut.send(Self.head(body.count) + body.prefix(body.count / 2))
        cut.close()
        let reset = try RawClient(port: server.http.port)
        reset.send(Self.head(body.count) + body.prefix(body.count - 1))
        reset.reset()
        #expect(try await count(server) == 0)
        let answer = try #require(try await post(server, body))
        #expect(answer.status == 200)
        let results = try RecordBatchAnswer.decode(try JSONReader().parse(answer.body), at: .root).results
        #expect(results.map(\.status) == [.created, .created, .created])
        let again = try #require(try await post(server, body))
        let repeated = try RecordBatchAnswer.decode(try JSONReader().parse(again.body), at: .root).results
        #expect(repeated.map(\.status) == [.duplicate, .duplicate, .duplicate])
        #expect(try await count(server) == 3)
        await server.shutdown()
    }

    @Test func theBodyLimitHoldsAtExactlyFourMebibytes() async throws {
        let server = try start()
        let exact = try #require(try await post(server, try Self.batch(2, padTo: RecordBatch.maxBodyBytes)))
        #expect(exact.status == 200)
        let over = try #require(try await post(server, try Self.batch(1, padTo: RecordBatch.maxBodyBytes + 1)))
        #expect(over.status == 413)
        #expect(try await count(server) == 2)
        await server.shutdown()
    }

    @Test func theCountLimitHoldsAtExactlyFiveHundredRecords() async throws {
        let server = try start()
        let over = try #require(try await post(server, try Self.batch(RecordBatch.maxRecords + 1)))
        #expect(over.status == 400)
        let error = try APIErrorBody.decode(try JSONReader().parse(over.body), at: .root)
        #expect(error.param == "records")
        #expect(try await count(server) == 0)
        let exact = try #require(try await post(server, try Self.batch(RecordBatch.maxRecords)))
        #expect(exact.status == 200)
        #expect(try await count(server) == RecordBatch.maxRecords)
        await server.shutdown()
    }
}
