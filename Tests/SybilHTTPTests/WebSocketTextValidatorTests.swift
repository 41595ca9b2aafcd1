import SybilCore
import SybilHTTP
import Testing

/// Text is refused at its first invalid byte (RFC 6455 §8.1, "fail fast"; Autobahn|Testsuite
/// 6.4.1–6.4.4), on both sides: the decoder checks UTF-8 across fragments and inside a frame
/// that is still arriving.
@Suite("WebSocket text checked as it arrives", .timeLimit(.minutes(2)))
struct WebSocketTextValidatorTests {
    private static let invalidText = WebSocketProtocolError(closeCode: 1007, "a text message is not valid UTF-8")

    /// What Swift's own validator says of `bytes` as a whole message.
    private static func isUTF8(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

    private static func validates(_ pieces: [[UInt8]]) -> Bool {
        var validator = WebSocketTextValidator()
        for piece in pieces where !validator.consume(piece) { return false }
        return validator.isAtBoundary
    }

    /// Every one- and two-byte sequence, and every split of a seeded sample of longer ones,
    /// gets the same verdict as `String(validating:)`.
    @Test func agreesWithTheStandardLibrary() {
        for first in 0...255 {
            #expect(Self.validates([[UInt8(first)]]) == Self.isUTF8([UInt8(first)]))
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                guard Self.validates([bytes]) != Self.isUTF8(bytes) else { continue }
                Issue.record("disagrees on \(bytes)")
            }
        }
        let random = SeededRandomSource(seed: 27)
        // Replacement bytes: lead and continuation bytes at the edges of their ranges.
        let alphabet: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
        ]
        // Valid text of one to four code points, every other sample with one byte replaced.
        let scalarRanges: [ClosedRange<UInt32>] = [0x20...0x7F, 0x80...0x7FF, 0x800...0xFFFF, 0x1_0000...0x10_FFFF]
        var valid = 0
        for sample in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0...random.next(below: 4) {
                let range = scalarRanges[Int(random.next(below: 4))]
                let value = range.lowerBound + UInt32(random.next(below: UInt64(range.count)))
                bytes += Array(String(Unicode.Scalar(value) ?? "?").utf8)
            }
            if sample % 2 == 1 {
                let position = Int(random.next(below: UInt64(bytes.count)))
                bytes[position] = alphabet[Int(random.next(below: UInt64(alphabet.count)))]
            }
            let cut = Int(random.next(below: UInt64(bytes.count + 1)))
            let expected = Self.isUTF8(bytes)
            if expected { valid += 1 }
            #expect(Self.validates([Array(bytes[..<cut]), Array(bytes[cut...])]) == expected, "\(bytes) cut at \(cut)")
        }
        #expect((10_000..<20_000).contains(valid), "the sample holds valid and invalid sequences")
    }

    @Test func longASCIIAndMixedTextPass() {
        let text = String(repeating: "plain ASCII, then Grüße, κόσμε, 𝄞 and € ", count: 50)
        #expect(Self.validates([Array(text.utf8)]))
        #expect(!Self.validates([Array(text.utf8) + [0xC3]]), "a message may not end inside a code point")
        #expect(!Self.validates([Array(String(repeating: "a", count: 37).utf8) + [0xF4, 0x90, 0x80, 0x80]]))
    }

    // Autobahn 6.4.3: one text frame in three chops; the second holds U+110000 (F4 90 80 80).
    // The frame is refused when the second chop arrives, not when the frame is complete.
    @Test(arguments: [true, false])
    func aFrameStillArrivingIsRefusedAtItsFirstInvalidByte(masked: Bool) throws {
        let part1: [UInt8] = [0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5]
        let part2: [UInt8] = [0xf4, 0x90, 0x80, 0x80]
        let part3: [UInt8] = Array("edited".utf8)
        let bytes = WebSocketFrame(opcode: .text, payload: part1 + part2 + part3).encoded(
            maskingKey: masked ? [3, 0x81, 0x7e, 0x40] : nil)
        let headerSize = masked ? 6 : 2
        var decoder = WebSocketFrameDecoder(expectMasked: masked, maximumPayload: 1 << 20)
        decoder.append(bytes[..<(headerSize + part1.count)])
        #expect(try decoder.nextFrame() == nil, "the valid start is held, waiting for more")
        decoder.append(bytes[(headerSize + part1.count)..<(headerSize + part1.count + part2.count)])
        #expect(throws: Self.invalidText) { try decoder.nextFrame() }
        #expect(throws: Self.invalidText, "the refusal stays") { try decoder.nextFrame() }
    }

    /// The same when the invalid bytes sit in the buffer behind another frame (read by
    /// `nextFrame()`, not by `append`).
    @Test func aBufferedFrameStillArrivingIsRefused() throws {
        let ping = WebSocketFrame(opcode: .ping, payload: [0xff]).encoded(maskingKey: nil)
        let text = WebSocketFrame(opcode: .text, payload: Array("ok".utf8) + [0xc0, 0x80] + Array("rest".utf8))
            .encoded(maskingKey: nil)
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 20)
        decoder.append(ping + text.prefix(6))
        #expect(try decoder.nextFrame()?.opcode == .ping, "a ping's payload is not text")
        #expect(throws: Self.invalidText) { try decoder.nextFrame() }
    }

    // Autobahn 6.4.1: a text message in three fragments, the second making it invalid: refused
    // at the second fragment, before the message's last fragment.
    @Test func aFragmentedMessageIsRefusedAtTheFragmentThatBreaksIt() throws {
        var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
        var assembler = WebSocketMessageAssembler(maximumMessage: 1 << 20)
        let key: [UInt8] = [1, 2, 3, 4]
        decoder.append(
            WebSocketFrame(fin: false, opcode: .text, payload: [0xce, 0xba, 0xe1, 0xbd]).encoded(maskingKey: key))
        let first = try #require(try decoder.nextFrame())
        #expect(try assembler.add(first) == nil)
        // A ping between fragments, with bytes that are not UTF-8, changes nothing.
        decoder.append(WebSocketFrame(opcode: .ping, payload: [0xf5]).encoded(maskingKey: key))
        #expect(try decoder.nextFrame()?.opcode == .ping)
        decoder.append(
            WebSocketFrame(fin: false, opcode: .continuation, payload: [0xb9, 0xf4, 0x90]).encoded(maskingKey: key))
        #expect(throws: Self.invalidText) { try decoder.nextFrame() }
    }

    /// A code point split across fragments and across appends is accepted, and binary data is
    /// never read as text (before or after a text message).
    @Test func splitCodePointsAndBinaryPass() throws {
        let clef = Array("𝄞".utf8)
        let key: [UInt8] = [9, 8, 7, 6]
        let bytes =
            WebSocketFrame(opcode: .binary, payload: [0xff, 0xc0]).encoded(maskingKey: key)
            + WebSocketFrame(fin: false, opcode: .text, payload: Array(clef[..<1])).encoded(maskingKey: key)
            + WebSocketFrame(fin: false, opcode: .continuation, payload: Array(clef[1..<3])).encoded(maskingKey: key)
            + WebSocketFrame(opcode: .continuation, payload: Array(clef[3...]) + [0x21]).encoded(maskingKey: key)
            + WebSocketFrame(fin: false, opcode: .binary, payload: [0xed, 0xa0]).encoded(maskingKey: key)
            + WebSocketFrame(opcode: .continuation, payload: [0x80]).encoded(maskingKey: key)
        for piece in [1, 2, 5, bytes.count] {
            var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
            var assembler = WebSocketMessageAssembler(maximumMessage: 1 << 20)
            var events: [WebSocketEvent] = []
            var offset = 0
            while offset < bytes.count {
                decoder.append(bytes[offset..<min(bytes.count, offset + piece)])
                offset += piece
                while let frame = try decoder.nextFrame() {
                    if let event = try assembler.add(frame) { events.append(event) }
                }
            }
            #expect(
                events == [.binary([0xff, 0xc0]), .text("𝄞!"), .binary([0xed, 0xa0, 0x80])], "pieces of \(piece)")
        }
    }

    /// A text message whose last fragment ends inside a code point is refused by the decoder.
    @Test func aMessageMayNotEndInsideACodePoint() throws {
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 100)
        decoder.append(WebSocketFrame(opcode: .text, payload: [0x41, 0xe2, 0x82]).encoded(maskingKey: nil))
        #expect(throws: Self.invalidText) { try decoder.nextFrame() }
    }
}
