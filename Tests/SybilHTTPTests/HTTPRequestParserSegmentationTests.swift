import SybilHTTP
import Testing

/// A request is accepted or refused the same whether its bytes arrive in one read or one byte
/// at a time. Found by fuzzing: a chunk-size line with long extensions, and a trailer section
/// larger than the head limit, were accepted in one read but refused when split.
@Suite("HTTP request parser segmentation", .timeLimit(.minutes(2)))
struct HTTPRequestParserSegmentationTests {
    /// Whether the parser refused `bytes`, and how many requests it completed, fed in pieces of
    /// `step` bytes.
    private func outcome(_ bytes: [UInt8], step: Int) -> (refused: Bool, ended: Int) {
        var parser = HTTPRequestParser(maximumHeadBytes: 1_024) { _ in 2_048 }
        var events: [HTTPRequestParser.Event] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            do {
                try parser.feed(bytes[start..<end], into: &events)
            } catch {
                return (true, events.filter { $0 == .end }.count)
            }
            start = end
        }
        return (false, events.filter { $0 == .end }.count)
    }

    private static func chunked(sizeLine: String, trailer: String = "") -> [UInt8] {
        Array(
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(sizeLine)\r\nhello\r\n0\r\n"
                + trailer + "\r\n").utf8)
    }

    @Test(
        "the same answer whole and byte by byte",
        arguments: [
            // A chunk-size line of exactly 1024 bytes is accepted, one byte more refused.
            (chunked(sizeLine: "5;e=" + String(repeating: "x", count: 1_020)), false),
            (chunked(sizeLine: "5;e=" + String(repeating: "x", count: 1_021)), true),
            (chunked(sizeLine: "5;e=" + String(repeating: "x", count: 1_100)), true),
            // Trailer sections up to the head limit (1024 bytes with their CRLFs) pass.
            (chunked(sizeLine: "5", trailer: "X-T: " + String(repeating: "y", count: 1_017) + "\r\n"), false),
            (chunked(sizeLine: "5", trailer: "X-T: " + String(repeating: "y", count: 1_018) + "\r\n"), true),
            (chunked(sizeLine: "5", trailer: String(repeating: "X-T: yyyyyyyyyyy\r\n", count: 80)), true),
        ])
    func sameAnswerHoweverSplit(bytes: [UInt8], refused: Bool) {
        let whole = outcome(bytes, step: bytes.count)
        #expect(whole.refused == refused)
        #expect(whole.ended == (refused ? 0 : 1))
        for step in [1, 2, 7, 512] {
            let split = outcome(bytes, step: step)
            #expect(split.refused == whole.refused, "fed \(step) bytes at a time")
            #expect(split.ended == whole.ended, "fed \(step) bytes at a time")
        }
    }
}
