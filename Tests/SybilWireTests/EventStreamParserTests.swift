import SybilWire
import Testing

/// The WHATWG event-stream rules, one test each, fed whole and split at every byte.
@Suite("Event stream parser", .timeLimit(.minutes(2)))
struct EventStreamParserTests {
    /// Feeds `bytes` in chunks of `size` bytes and returns the events, then finishes.
    private func parse(_ bytes: [UInt8], chunk size: Int? = nil) -> (
        events: [ServerSentEvent], parser: EventStreamParser
    ) {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        let step = size ?? max(bytes.count, 1)
        var start = 0
        while start < bytes.count {
            let end = min(start + step, bytes.count)
            events += parser.feed(bytes[start..<end])
            start = end
        }
        parser.finish()
        return (events, parser)
    }

    private func parse(_ text: String, chunk size: Int? = nil) -> [ServerSentEvent] {
        parse(Array(text.utf8), chunk: size).events
    }

    /// The events must not depend on how the bytes are split.
    private func expectSplitIndependent(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let whole = parse(bytes)
        for size in 1...min(bytes.count, 9) {
            let split = parse(bytes, chunk: size)
            #expect(split.events == whole.events, "chunk size \(size)", sourceLocation: sourceLocation)
            #expect(split.parser.lastEventId == whole.parser.lastEventId, sourceLocation: sourceLocation)
            #expect(split.parser.reconnectionTime == whole.parser.reconnectionTime, sourceLocation: sourceLocation)
        }
    }

    @Test func dispatchesOnBlankLineOnly() {
        #expect(parse("data: a\n") == [])
        #expect(parse("data: a\n\n") == [ServerSentEvent(data: "a")])
    }

    @Test func unterminatedFinalEventIsDiscarded() {
        let result = parse(Array("data: a\n\ndata: b\nid: 7\n".utf8))
        #expect(result.events == [ServerSentEvent(data: "a")])
        #expect(result.parser.lastEventId == "", "the id of an unterminated event never counts")
    }

    @Test func dataLinesJoinWithLineFeed() {
        #expect(parse("data: a\ndata:b\ndata\ndata:  c\n\n") == [ServerSentEvent(data: "a\nb\n\n c")])
    }

    @Test func oneOptionalSpaceAfterColonIsRemoved() {
        #expect(parse("data:x\n\ndata: x\n\ndata:  x\n\n").map(\.data) == ["x", "x", " x"])
    }

    @Test func fieldWithoutColonHasEmptyValue() {
        #expect(parse("data\n\n") == [ServerSentEvent(data: "")])
        #expect(parse("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
        #expect(parse("event\ndata: x\n\n") == [ServerSentEvent(type: "message", data: "x")])
    }

    @Test func emptyDataBufferDispatchesNothing() {
        #expect(parse("event: ping\n\n") == [])
        #expect(parse("event: ping\n\ndata: x\n\n") == [ServerSentEvent(data: "x")], "the type does not leak")
    }

    @Test func eventTypeAppliesToOneEvent() {
        #expect(
            parse("event: delta\ndata: 1\n\ndata: 2\n\n") == [
                ServerSentEvent(type: "delta", data: "1"), ServerSentEvent(type: "message", data: "2"),
            ])
    }

    @Test func commentsAreIgnoredAndCounted() {
        let result = parse(Array(": heartbeat\n:\ndata: x\n: mid\n\n".utf8))
        #expect(result.events == [ServerSentEvent(data: "x")])
        #expect(result.parser.statistics.comments == 3)
    }

    @Test func unknownFieldsAreIgnored() {
        #expect(parse("foo: bar\nDATA: no\ndata: yes\n\n") == [ServerSentEvent(data: "yes")])
    }

    @Test func lastEventIdPersistsAcrossEvents() {
        #expect(
            parse("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n") == [
                ServerSentEvent(data: "a", lastEventId: "1"), ServerSentEvent(data: "b", lastEventId: "1"),
                ServerSentEvent(data: "c", lastEventId: ""),
            ])
    }

    @Test func idWithNullIsIgnored() {
        let events = parse(Array("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n".utf8)).events
        #expect(events.map(\.lastEventId) == ["1", "1"])
    }

    @Test func idWithoutDataStillUpdatesLastEventIdAtTheBlankLine() {
        let result = parse(Array("id: 5\n\n".utf8))
        #expect(result.events == [])
        #expect(result.parser.lastEventId == "5")
    }

    @Test func retryOnlyWhenAllDigits() {
        #expect(parse(Array("retry: 1500\n".utf8)).parser.reconnectionTime == 1_500)
        #expect(parse(Array("retry: 0\n".utf8)).parser.reconnectionTime == 0)
        for bad in ["retry: 15x\n", "retry: -1\n", "retry: 1.5\n", "retry:\n", "retry:  1\n", "retry: ١\n"] {
            #expect(parse(Array(bad.utf8)).parser.reconnectionTime == nil, "\(bad.debugDescription)")
        }
        #expect(
            parse(Array("retry: 10\nretry: x\n".utf8)).parser.reconnectionTime == 10, "a bad value keeps the old one")
    }

    @Test func lineEndsCRLFAndCRLF() {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")]
        #expect(parse("data: a\rdata: b\r\rdata: c\r\r") == expected)
        #expect(parse("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n") == expected)
        #expect(parse("data: a\ndata: b\r\n\rdata: c\n\r\n") == expected)
    }

    @Test func crlfSplitAcrossChunksIsOneLineEnd() {
        var parser = EventStreamParser()
        #expect(parser.feed(Array("data: a\r".utf8)) == [])
        #expect(parser.feed(Array("\ndata: b\r".utf8)) == [])
        // A CR is a complete line end at once: the blank line dispatches without waiting.
        #expect(parser.feed(Array("\n\r".utf8)) == [ServerSentEvent(data: "a\nb")])
        // The LF that completes that CRLF is not a second blank line; "data: c" follows.
        #expect(parser.feed(Array("\ndata: c\n".utf8)) == [])
        #expect(parser.feed(Array("\n".utf8)) == [ServerSentEvent(data: "c")])
    }

    @Test func dataLineSplitAfterItsColonDropsOnlyOneSpace() {
        var parser = EventStreamParser()
        #expect(parser.feed(Array("data:".utf8)) == [])
        #expect(parser.feed(Array("  x".utf8)) == [])
        #expect(parser.feed(Array("y\ndat".utf8)) == [])
        #expect(parser.feed(Array("a: z\r".utf8)) == [])
        #expect(parser.feed(Array("\n\n".utf8)) == [ServerSentEvent(data: " xy\nz")])
    }

    @Test func lfAfterCRLFIsABlankLine() {
        // CR LF LF: the CRLF ends the data line, the lone LF is the blank line.
        #expect(parse("data: a\r\n\n") == [ServerSentEvent(data: "a")])
        // CR CR: two line ends.
        #expect(parse("data: a\r\r") == [ServerSentEvent(data: "a")])
    }

    @Test func leadingBOMIsStrippedOnce() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(parse(bom + Array("data: a\n\n".utf8)).events == [ServerSentEvent(data: "a")])
        // A second BOM is part of the first line, which is then an unknown field name.
        #expect(parse(bom + bom + Array("data: a\n\ndata: b\n\n".utf8)).events == [ServerSentEvent(data: "b")])
    }

    @Test func bomSplitAcrossChunks() {
        var parser = EventStreamParser()
        #expect(parser.feed([0xEF]) == [])
        #expect(parser.feed([0xBB]) == [])
        #expect(parser.feed([0xBF] + Array("data: x\n\n".utf8)) == [ServerSentEvent(data: "x")])
    }

    @Test func partialBOMIsContent() {
        // EF BB followed by something else is not a BOM; the bytes stay in the line.
        let bytes: [UInt8] = [0xEF, 0xBB] + Array("data: x\n\ndata: y\n\n".utf8)
        #expect(parse(bytes).events == [ServerSentEvent(data: "y")])
        expectSplitIndependent(bytes)
    }

    @Test func everyNewStreamMayStartWithABOM() {
        var parser = EventStreamParser()
        _ = parser.feed([0xEF, 0xBB, 0xBF] + Array("id: 1\ndata: a\n\ndata: partial".utf8))
        parser.finish()
        #expect(
            parser.feed([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8)) == [
                ServerSentEvent(data: "b", lastEventId: "1")
            ])
    }

    @Test func utf8IsDecodedWithReplacement() {
        let bytes: [UInt8] = Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8)
        #expect(parse(bytes).events.map(\.data) == ["a\u{FFFD}\u{FFFD}b"])
        #expect(parse(bytes).events.map(\.dataBytes) == [[0x61, 0xFF, 0xC3, 0x62]], "the bytes stay as received")
    }

    @Test func multibyteCharacterSplitAcrossChunks() {
        let bytes = Array("data: Grüße 你好 🎉\n\n".utf8)
        for size in 1...8 {
            #expect(parse(bytes, chunk: size).events == [ServerSentEvent(data: "Grüße 你好 🎉")], "chunk size \(size)")
        }
    }

    @Test func splittingNeverChangesTheResult() {
        let stream =
            "\u{FEFF}: hi\r\nid: 1\revent: delta\ndata: a\r\ndata\n\nretry: 250\nid: 2\u{0}\ndata: ü\r\r"
            + "data: tail\n"
        expectSplitIndependent(Array(stream.utf8))
    }

    @Test func finishDiscardsPartialLineAndResets() {
        var parser = EventStreamParser()
        _ = parser.feed(Array("id: 3\ndata: a\n\nevent: x\ndata: part".utf8))
        parser.finish()
        #expect(parser.lastEventId == "3")
        #expect(parser.feed(Array("\n\n".utf8)) == [], "the partial line is gone")
        #expect(
            parser.feed(Array("data: b\n\n".utf8)) == [ServerSentEvent(type: "message", data: "b", lastEventId: "3")])
    }

    @Test func largeEventInSmallChunksIsLinearWork() {
        // A 1.5 MB event arriving in 8 KB chunks: every byte is searched at most once for each
        // of CR and LF, and the data value is copied once (streamed into the event).
        let line = "data: " + String(repeating: "x", count: 1_499_990) + "\n\n"
        let bytes = Array(line.utf8)
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + 8_192, bytes.count)
            events += parser.feed(bytes[start..<end])
            start = end
        }
        #expect(events.count == 1)
        #expect(events.first?.dataBytes.count == 1_499_990)
        #expect(parser.statistics.bytesScanned >= bytes.count)
        #expect(parser.statistics.bytesScanned <= 2 * bytes.count)
        #expect(parser.statistics.bytesCopied <= bytes.count)
    }

    @Test func manySmallEventsAreLinearWork() {
        let event = "data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n"
        let bytes = Array(String(repeating: event, count: 10_000).utf8)
        var parser = EventStreamParser()
        var count = 0
        var start = 0
        while start < bytes.count {
            let end = min(start + 8_192, bytes.count)
            parser.feed(bytes[start..<end]) { _ in count += 1 }
            start = end
        }
        #expect(count == 10_000)
        #expect(parser.statistics.eventsDispatched == 10_000)
        #expect(parser.statistics.bytesScanned >= bytes.count)
        #expect(parser.statistics.bytesScanned <= 2 * bytes.count)
        #expect(parser.statistics.bytesCopied <= 2 * bytes.count)
    }
}
