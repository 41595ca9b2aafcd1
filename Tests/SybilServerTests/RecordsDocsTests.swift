import Foundation
import SybilCore
import SybilNet
import SybilServer
import SybilWire
import Testing

/// docs/api/records.md is the contract: each example decodes with the Wire type its marker
/// names, and the server answers the batch example with exactly the answer example and the
/// error example for 501 records.
@Suite("Records docs", .timeLimit(.minutes(2)))
struct RecordsDocsTests {
    private static let page = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/api/records.md")

    /// The fenced examples: the `<!-- decodes as X -->` marker before each (if any), the
    /// fence line and the body.
    private static func examples() throws -> [(marker: String?, fence: String, body: String)] {
        var found: [(String?, String, String)] = []
        var marker: String?
        var open: String?
        var lines: [Substring] = []
        for line in try String(contentsOf: page, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                if let fence = open {
                    found.append((marker, fence, lines.joined(separator: "\n")))
                    open = nil
                    marker = nil
                } else {
                    open = String(line.dropFirst(3))
                    lines = []
                }
            } else if open != nil {
                lines.append(line)
            } else if line.hasPrefix("<!-- decodes as "), line.hasSuffix(" -->") {
                marker = String(line.dropFirst(16).dropLast(4))
            }
        }
        return found
    }

    private func example(_ marker: String) throws -> JSONValue {
        let body = try #require(try Self.examples().first { $0.marker == marker }?.body)
        return try JSONReader().parse(body)
    }

    @Test func everyExampleDecodesWithTheTypeItsMarkerNames() throws {
        let examples = try Self.examples()
        #expect(examples.count == 5)
        for example in examples {
            let value = try JSONReader().parse(example.body)
            switch (example.marker, example.fence) {
            case ("Record", "json value"): _ = try Record.decode(value, at: .root)
            case ("RecordBatch", "json value"): _ = try RecordBatch.decode(value, at: .root)
            case ("RecordBatchAnswer", "json value"): _ = try RecordBatchAnswer.decode(value, at: .root)
            case ("RecordPage", "json value"): _ = try RecordPage.decode(value, at: .root)
            case (nil, "json error-body"): _ = try APIErrorBody.decode(value, at: .root)
            default: Issue.record("no decoder for \(example.marker ?? "no marker") \(example.fence)")
            }
        }
    }

    @Test func theServerAnswersTheBatchExampleWithTheAnswerExample() async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "POST", "/api/records/batch", json: JSONWriter().string(from: try example("RecordBatch")))
        #expect(response.status == 200)
        #expect(try json(response) == (try example("RecordBatchAnswer")))
        let page = try JSONReader().parse(
            await harness.send("GET", "/api/records?limit=500").bodyBytes ?? [])
        #expect(page == (try example("RecordPage")))
    }

    @Test func theServerAnswersFiveHundredAndOneRecordsWithTheErrorExample() async throws {
        let harness = try AppHarness()
        let record = try example("Record")
        let body = JSONWriter().string(from: ["records": .array(Array(repeating: record, count: 501))])
        let response = await harness.send("POST", "/records/batch", json: body)
        #expect(response.status == 400)
        let documented = try #require(try Self.examples().first { $0.fence == "json error-body" }?.body)
        #expect(try json(response) == (try JSONReader().parse(documented)))
    }
}
