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
            do {
                events += try parser.feed(bytes[start..<end])
            } catch {
                Issue.record("refused at the default limits: \(error)")
            }
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

    @Test func dispatchesOnBlankLineOnly() throws {
        #expect(parse("data: a\n") == [])
        #expect(parse("data: a\n\n") == [ServerSentEvent(data: "a")])
    }

    @Test func unterminatedFinalEventIsDiscarded() throws {
        let result = parse(Array("data: a\n\ndata: b\nid: 7\n".utf8))
        #expect(result.events == [ServerSentEvent(data: "a")])
        #expect(result.parser.lastEventId == "", "the id of an unterminated event never counts")
    }

    @Test func dataLinesJoinWithLineFeed() throws {
        #expect(parse("data: a\ndata:b\ndata\ndata:  c\n\n") == [ServerSentEvent(data: "a\nb\n\n c")])
    }

    @Test func oneOptionalSpaceAfterColonIsRemoved() throws {
        #expect(parse("data:x\n\ndata: x\n\ndata:  x\n\n").map(\.data) == ["x", "x", " x"])
    }

    @Test func fieldWithoutColonHasEmptyValue() throws {
        #expect(parse("data\n\n") == [ServerSentEvent(data: "")])
        #expect(parse("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
        #expect(parse("event\ndata: x\n\n") == [ServerSentEvent(type: "message", data: "x")])
    }

    @Test func emptyDataBufferDispatchesNothing() throws {
        #expect(parse("event: ping\n\n") == [])
        #expect(parse("event: ping\n\ndata: x\n\n") == [ServerSentEvent(data: "x")], "the type does not leak")
    }

    @Test func eventTypeAppliesToOneEvent() throws {
        #expect(
            parse("event: delta\ndata: 1\n\ndata: 2\n\n") == [
                ServerSentEvent(type: "delta", data: "1"), ServerSentEvent(type: "message", data: "2"),
            ])
    }

    @Test func commentsAreIgnoredAndCounted() throws {
        let result = parse(Array(": heartbeat\n:\ndata: x\n: mid\n\n".utf8))
        #expect(result.events == [ServerSentEvent(data: "x")])
        #expect(result.parser.statistics.comments == 3)
    }

    @Test func unknownFieldsAreIgnored() throws {
        #expect(parse("foo: bar\nDATA: no\ndata: yes\n\n") == [ServerSentEvent(data: "yes")])
    }

    @Test func lastEventIdPersistsAcrossEvents() throws {
        #expect(
            parse("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n") == [
                ServerSentEvent(data: "a", lastEventId: "1"), ServerSentEvent(data: "b", lastEventId: "1"),
                ServerSentEvent(data: "c", lastEventId: ""),
            ])
    }

    @Test func idWithNullIsIgnored() throws {
        let events = parse(Array("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n".utf8)).events
        #expect(events.map(\.lastEventId) == ["1", "1"])
    }

    @Test func idWithoutDataStillUpdatesLastEventIdAtTheBlankLine() throws {
        let result = parse(Array("id: 5\n\n".utf8))
        #expect(result.events == [])
        #expect(result.parser.lastEventId == "5")
    }

    @Test func retryOnlyWhenAllDigits() throws {
        #expect(parse(Array("retry: 1500\n".utf8)).parser.reconnectionTime == 1_500)
        #expect(parse(Array("retry: 0\n".utf8)).parser.reconnectionTime == 0)
        for bad in ["retry: 15x\n", "retry: -1\n", "retry: 1.5\n", "retry:\n", "retry:  1\n", "retry: ١\n"] {
            #expect(parse(Array(bad.utf8)).parser.reconnectionTime == nil, "\(bad.debugDescription)")
        }
        #expect(
            parse(Array("retry: 10\nretry: x\n".utf8)).parser.reconnectionTime == 10, "a bad value keeps the old one")
    }

    @Test func lineEndsCRLFAndCRLF() throws {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")]
        #expect(parse("data: a\rdata: b\r\rdata: c\r\r") == expected)
        #expect(parse("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n") == expected)
        #expect(parse("data: a\ndata: b\r\n\rdata: c\n\r\n") == expected)
    }

    @Test func crlfSplitAcrossChunksIsOneLineEnd() throws {
        var parser = EventStreamParser()
        #expect(try parser.feed(Array("data: a\r".utf8)) == [])
        #expect(try parser.feed(Array("\ndata: b\r".utf8)) == [])
        // A CR is a complete line end at once: the blank line dispatches without waiting.
        #expect(try parser.feed(Array("\n\r".utf8)) == [ServerSentEvent(data: "a\nb")])
        // The LF that completes that CRLF is not a second blank line; "data: c" follows.
        #expect(try parser.feed(Array("\ndata: c\n".utf8)) == [])
        #expect(try parser.feed(Array("\n".utf8)) == [ServerSentEvent(data: "c")])
    }

    @Test func dataLineSplitAfterItsColonDropsOnlyOneSpace() throws {
        var parser = EventStreamParser()
        #expect(try parser.feed(Array("data:".utf8)) == [])
        #expect(try parser.feed(Array("  x".utf8)) == [])
        #expect(try parser.feed(Array("y\ndat".utf8)) == [])
        #expect(try parser.feed(Array("a: z\r".utf8)) == [])
        #expect(try parser.feed(Array("\n\n".utf8)) == [ServerSentEvent(data: " xy\nz")])
    }

    @Test func lfAfterCRLFIsABlankLine() throws {
        // CR LF LF: the CRLF ends the data line, the lone LF is the blank line.
        #expect(parse("data: a\r\n\n") == [ServerSentEvent(data: "a")])
        // CR CR: two line ends.
        #expect(parse("data: a\r\r") == [ServerSentEvent(data: "a")])
    }

    @Test func leadingBOMIsStrippedOnce() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(parse(bom + Array("data: a\n\n".utf8)).events == [ServerSentEvent(data: "a")])
        // A second BOM is part of the first line, which is then an unknown field name.
        #expect(parse(bom + bom + Array("data: a\n\ndata: b\n\n".utf8)).events == [ServerSentEvent(data: "b")])
    }

    @Test func bomSplitAcrossChunks() throws {
        var parser = EventStreamParser()
        #expect(try parser.feed([0xEF]) == [])
        #expect(try parser.feed([0xBB]) == [])
        #expect(try parser.feed([0xBF] + Array("data: x\n\n".utf8)) == [ServerSentEvent(data: "x")])
    }

    @Test func partialBOMIsContent() throws {
        // EF BB followed by something else is not a BOM; the bytes stay in the line.
        let bytes: [UInt8] = [0xEF, 0xBB] + Array("data: x\n\ndata: y\n\n".utf8)
        #expect(parse(bytes).events == [ServerSentEvent(data: "y")])
        expectSplitIndependent(bytes)
    }

    @Test func everyNewStreamMayStartWithABOM() throws {
        var parser = EventStreamParser()
        _ = try parser.feed([0xEF, 0xBB, 0xBF] + Array("id: 1\ndata: a\n\ndata: partial".utf8))
        parser.finish()
        #expect(
            try parser.feed([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8)) == [
                ServerSentEvent(data: "b", lastEventId: "1")
            ])
    }

    @Test func utf8IsDecodedWithReplacement() throws {
        let bytes: [UInt8] = Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8)
        #expect(parse(bytes).events.map(\.data) == ["a\u{FFFD}\u{FFFD}b"])
        #expect(parse(bytes).events.map(\.dataBytes) == [[0x61, 0xFF, 0xC3, 0x62]], "the bytes stay as received")
    }

    @Test func multibyteCharacterSplitAcrossChunks() throws {
        let bytes = Array("data: Grüße 你好 🎉\n\n".utf8)
        for size in 1...8 {
            #expect(parse(bytes, chunk: size).events == [ServerSentEvent(data: "Grüße 你好 🎉")], "chunk size \(size)")
        }
    }

    @Test func splittingNeverChangesTheResult() throws {
        let stream =
            "\u{FEFF}: hi\r\nid: 1\revent: delta\ndata: a\r\ndata\n\nretry: 250\nid: 2\u{0}\ndata: ü\r\r"
            + "data: tail\n"
        expectSplitIndependent(Array(stream.utf8))
    }

    @Test func finishDiscardsPartialLineAndResets() throws {
        var parser = EventStreamParser()
        _ = try parser.feed(Array("id: 3\ndata: a\n\nevent: x\ndata: part".utf8))
        parser.finish()
        #expect(parser.lastEventId == "3")
        #expect(try parser.feed(Array("\n\n".utf8)) == [], "the partial line is gone")
        #expect(
            try parser.feed(Array("data: b\n\n".utf8)) == [
                ServerSentEvent(type: "message", data: "b", lastEventId: "3")
            ])
    }

    @Test func largeEventInSmallChunksIsLinearWork() throws {
        // A 1.5 MB event arriving in 8 KB chunks: every byte is searched at most once for each
        // of CR and LF, and the data value is copied once (streamed into the event).
        let line = "data: " + String(repeating: "x", count: 1_499_990) + "\n\n"
        let bytes = Array(line.utf8)
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + 8_192, bytes.count)
            events += try parser.feed(bytes[start..<end])
            start = end
        }
        #expect(events.count == 1)
        #expect(events.first?.dataBytes.count == 1_499_990)
        #expect(parser.statistics.bytesScanned >= bytes.count)
        #expect(parser.statistics.bytesScanned <= 2 * bytes.count)
        #expect(parser.statistics.bytesCopied <= bytes.count)
    }

    @Test func manySmallEventsAreLinearWork() throws {
        let event = "data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n"
        let bytes = Array(String(repeating: event, count: 10_000).utf8)
        var parser = EventStreamParser()
        var count = 0
        var start = 0
        while start < bytes.count {
            let end = min(start + 8_192, bytes.count)
            try parser.feed(bytes[start..<end]) { _ in count += 1 }
            start = end
        }
        #expect(count == 10_000)
        #expect(parser.statistics.eventsDispatched == 10_000)
        #expect(parser.statistics.bytesScanned >= bytes.count)
        #expect(parser.statistics.bytesScanned <= 2 * bytes.count)
        #expect(parser.statistics.bytesCopied <= 2 * bytes.count)
    }

    @Test func aDataLineWithinTheChunkIsCopiedOnlyIntoItsEvent() throws {
        // One data line per event, whole in the chunk: copied once, straight into the event,
        // never into the parser's own buffers.
        let bytes = Array(String(repeating: "id: 7\ndata: {\"a\":1}\n\n", count: 100).utf8)
        var parser = EventStreamParser()
        let events = try parser.feed(bytes)
        #expect(events.count == 100)
        #expect(events.allSatisfy { $0.data == "{\"a\":1}" && $0.lastEventId == "7" })
        #expect(parser.statistics.bytesCopied == 0)
    }

    @Test func keptEventsKeepTheirDataWhileLaterEventsAreParsed() throws {
        // Events handed out share nothing a later event writes into, whether the consumer
        // keeps them or not; sizes vary so that arrays are refilled and replaced.
        var parser = EventStreamParser()
        var kept: [ServerSentEvent] = []
        var expected: [String] = []
        for index in 0..<300 {
            let data = String(repeating: "x", count: (index * 37) % 200) + "\(index)"
            expected.append(data)
            try parser.feed(Array("data: \(data)\n\n".utf8)) { event in
                if index % 3 == 0 { kept.append(event) }
            }
        }
        let chunk = Array(expected.map { "data: \($0)\n\n" }.joined().utf8)
        try parser.feed(chunk) { kept.append($0) }
        #expect(kept.map(\.data) == expected.enumerated().filter { $0.offset % 3 == 0 }.map(\.element) + expected)
    }
}

/// The parser's bounds: a line or an event past its limit is refused, whatever the chunking,
/// and the parser holds at most the limit.
@Suite("Event stream parser limits", .timeLimit(.minutes(2)))
struct EventStreamParserLimitTests {
    private let limits = EventStreamParser.Limits(maximumLineBytes: 16, maximumEventBytes: 32)

    /// The events and the refusal of `text` fed in `size`-byte chunks.
    private func parse(_ text: String, chunk size: Int) -> ([String], EventStreamParser.LimitExceeded?) {
        let bytes = Array(text.utf8)
        var parser = EventStreamParser(limits: limits)
        var events: [String] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + size, bytes.count)
            do {
                try parser.feed(bytes[start..<end]) { events.append($0.data) }
            } catch {
                return (events, error)
            }
            start = end
        }
        return (events, nil)
    }

    private func expect(
        _ text: String, events: [String], refusal: EventStreamParser.LimitExceeded?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for size in [1, 2, 3, 5, 7, text.utf8.count] {
            let (found, error) = parse(text, chunk: size)
            #expect(found == events, "chunk size \(size)", sourceLocation: sourceLocation)
            #expect(error == refusal, "chunk size \(size)", sourceLocation: sourceLocation)
        }
    }

    @Test func aLineOfExactlyTheLimitIsRead() {
        // "event: " + 9 bytes = 16 bytes.
        expect("event: 123456789\ndata: a\n\n", events: ["a"], refusal: nil)
        expect(": 34567890123456\ndata: a\n\n", events: ["a"], refusal: nil)
    }

    @Test func aLineOneByteOverTheLimitIsRefused() {
        expect("data: a\n\nevent: 1234567890\ndata: b\n\n", events: ["a"], refusal: .lineTooLong(limit: 16))
        expect(": 345678901234567\n", events: [], refusal: .lineTooLong(limit: 16))
    }

    @Test func anUnendingLineIsRefusedWithoutHoldingIt() throws {
        var parser = EventStreamParser(limits: limits)
        try parser.feed(Array("id: ".utf8)) { _ in }
        var refused = false
        for _ in 0..<100 {
            do {
                try parser.feed([UInt8](repeating: 0x41, count: 5)) { _ in }
            } catch {
                #expect(error == .lineTooLong(limit: 16))
                refused = true
                break
            }
        }
        #expect(refused)
        #expect(parser.statistics.bytesCopied <= 16)
        #expect(throws: EventStreamParser.LimitExceeded.lineTooLong(limit: 16)) {
            try parser.feed(Array("\n\n".utf8)) { _ in }
        }
        parser.finish()
        #expect(try parser.feed(Array("data: again\n\n".utf8)).map(\.data) == ["again"], "finish starts anew")
    }

    @Test func anEventOfExactlyTheLimitIsRead() {
        let exact = String(repeating: "x", count: 32)
        expect("data: \(exact)\n\n", events: [exact], refusal: nil)
        // Two lines and the LF between them: 15 + 1 + 16 = 32.
        let first = String(repeating: "a", count: 15)
        let second = String(repeating: "b", count: 16)
        expect("data: \(first)\ndata: \(second)\n\n", events: ["\(first)\n\(second)"], refusal: nil)
    }

    @Test func anEventOneByteOverTheLimitIsRefused() {
        let over = String(repeating: "x", count: 33)
        expect("data: ok\n\ndata: \(over)\n\n", events: ["ok"], refusal: .eventTooLarge(limit: 32))
        let first = String(repeating: "a", count: 16)
        let second = String(repeating: "b", count: 16)
        expect("data: \(first)\ndata: \(second)\n\n", events: [], refusal: .eventTooLarge(limit: 32))
    }

    @Test func theDefaultsAre64KiBLinesAnd16MiBEvents() {
        let limits = EventStreamParser.Limits()
        #expect(limits.maximumLineBytes == 65_536)
        #expect(limits.maximumEventBytes == 16_777_216)
        #expect(
            EventStreamParser.LimitExceeded.lineTooLong(limit: 65_536).description
                == "a line of the event stream is longer than 65536 bytes")
    }
}
