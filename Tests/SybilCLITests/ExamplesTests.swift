import Foundation
import Testing

/// The files in `examples/` that the README's main command shows stay valid (or, for the
/// invalid one, stay rejected for the documented reason).
@Suite("Shipped examples", .timeLimit(.minutes(2)))
struct ExamplesTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    private func io(_ name: String) throws -> TestIO {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name)))
        return TestIO(files: [name: bytes])
    }

    @Test func validEnvelopeDecodes() async throws {
        let test = try io("envelope.json")
        #expect(await test.run("debug", "envelope", "envelope.json") == 0)
        #expect(test.stdout.contains(#""operationId": "op-0b6f""#))
    }

    @Test func invalidEnvelopeIsRejectedForItsMissingOperationId() async throws {
        let test = try io("envelope-invalid.json")
        #expect(await test.run("debug", "envelope", "envelope-invalid.json") == 65)
        #expect(
            test.stderr
                == "sybil: invalid envelope: liveOverlay.blocks[0].operationId: a live user row needs an operationId\n")
    }

    @Test func chatStreamParsesToFiveEventsAndKeepsTheLastTerminatedId() async throws {
        let test = try io("chat-stream.sse")
        #expect(await test.run("debug", "sse", "--chunk-bytes", "3", "chat-stream.sse") == 0)
        let lines = test.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first?.hasSuffix(#""lastEventId":"1"}"#) == true)
        #expect(lines.dropLast().last == #"{"type":"message","data":"[DONE]","lastEventId":"5"}"#)
        #expect(lines.last == #"{"end":true,"lastEventId":"5","reconnectionTime":3000}"#)
    }
}
