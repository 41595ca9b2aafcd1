import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// The records surface over HTTP: bodies are the Wire types, answers are read bounded and
/// decoded strictly, a batch's answer must name the records sent one by one, a `401` renews
/// the token once through the token chain, and a `3xx` is never followed.
///
/// Give it an ``HTTPClient`` that does not follow redirects
/// (`DefaultHTTPClient.make(redirects: .deliver)`).
public struct RecordsHTTPClient: RecordsAPI {
    /// The largest answer read: 500 results, or a page of 500 records at their limits.
    public static let maximumAnswerBytes = 8 << 20
    /// The largest error body read.
    public static let maximumErrorBytes = 64 << 10

    private let base: AgentAPIBase
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let timeout: Duration

    /// A client of the records at `base` (e.g. `https://host/api`), sending through `http`
    /// with the token from `tokens`.
    public init(base: AgentAPIBase, http: any HTTPClient, tokens: TokenProvider, timeout: Duration = .seconds(30)) {
        self.base = base
        self.http = http
        self.tokens = tokens
        self.timeout = timeout
    }

    /// `POST records/batch`; the answer must hold one result per record, each naming it.
    public func upload(_ records: [Record]) async throws(RecordSyncError) -> [RecordResult] {
        let body = JSONWriter().bytes(from: RecordBatch(records: records).jsonValue)
        let answer = try await json(
            method: "POST", route: ["records", "batch"], query: [], body: body, RecordBatchAnswer.decode)
        do {
            try answer.check(answering: records)
        } catch {
            throw .malformedAnswer("POST records/batch: \(error)")
        }
        return answer.results
    }

    /// `GET records`; a page holding more than `limit` records breaks the contract.
    public func page(after: RecordCursor?, limit: Int) async throws(RecordSyncError) -> RecordPage {
        precondition(RecordPage.limitRange.contains(limit), "limit must be within \(RecordPage.limitRange)")
        var query: [(String, String)] = []
        if let after { query.append(("after", after.description)) }
        query.append(("limit", String(limit)))
        let page = try await json(method: "GET", route: ["records"], query: query, body: nil, RecordPage.decode)
        guard page.records.count <= limit else {
            throw .malformedAnswer("GET records: records: \(page.records.count) records for a limit of \(limit)")
        }
        return page
    }

    // MARK: Transport

    private var requester: SybilAPIRequester<RecordSyncError> {
        SybilAPIRequester(
            base: base, http: http, tokens: tokens, timeout: timeout, maximumErrorBytes: Self.maximumErrorBytes,
            transport: { .transport($0) }, malformed: { .malformedAnswer($0) },
            refused: { status, body, _ in RecordSyncError.from(status: status, body: body) })
    }

    private func json<T>(
        method: String, route: [String], query: [(String, String)], body: [UInt8]?,
        _ decode: (JSONValue, JSONPath) throws(JSONError) -> T
    ) async throws(RecordSyncError) -> T {
        let call = SybilAPIRequester<RecordSyncError>.Call(
            method: method, route: route, query: query, contentType: body == nil ? nil : "application/json", body: body)
        return try await requester.json(call, maximumBytes: Self.maximumAnswerBytes, maximumDepth: 16, decode)
    }
}
