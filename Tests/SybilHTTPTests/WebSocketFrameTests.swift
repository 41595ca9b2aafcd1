import SybilHTTP
import Testing

@Suite("WebSocket frames (RFC 6455)", .timeLimit(.minutes(2)))
struct WebSocketFrameTests {
    private func decodeAll(_ bytes: [UInt8], masked: Bool = false, limit: Int = 1 << 20) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(expectMasked: masked, maximumPayload: limit)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    // RFC 6455 §5.7, byte for byte.
    @Test func singleFrameUnmaskedText() throws {
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(maskingKey: nil) == bytes)
        #expect(try decodeAll(bytes) == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
    }

    @Test func singleFrameMaskedText() throws {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
        #expect(frame.encoded(maskingKey: [0x37, 0xfa, 0x21, 0x3d]) == bytes)
        #expect(try decodeAll(bytes, masked: true) == [frame])
    }

    @Test func fragmentedUnmaskedText() throws {
        let bytes: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
        let frames = try decodeAll(bytes)
        #expect(
            frames == [
                WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
                WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)),
            ])
        var assembler = WebSocketMessageAssembler(maximumMessage: 100)
        #expect(try assembler.add(frames[0]) == nil)
        #expect(try assembler.add(frames[1]) == .text("Hello"))
    }

    @Test func pingAndMaskedPong() throws {
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        let pong: [UInt8] = [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8)).encoded(maskingKey: nil) == ping)
        #expect(
            WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8)).encoded(maskingKey: [0x37, 0xfa, 0x21, 0x3d])
                == pong)
        #expect(try decodeAll(ping).first?.opcode == .ping)
        #expect(try decodeAll(pong, masked: true).first?.payload == Array("Hello".utf8))
    }

    @Test func sixteenAndSixtyFourBitLengths() throws {
        let medium = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).encoded(
            maskingKey: nil)
        #expect(Array(medium.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(medium.count == 260)
        let large = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 9, count: 65_536)).encoded(
            maskingKey: nil)
        #expect(Array(large.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(try decodeAll(medium).first?.payload.count == 256)
        #expect(try decodeAll(large).first?.payload.count == 65_536)
        // Boundaries of the 7-bit and 16-bit forms.
        #expect(
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 125)).encoded(maskingKey: nil)[1]
                == 125)
        #expect(
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 126)).encoded(maskingKey: nil)[1]
                == 126)
        #expect(
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 65_535)).encoded(maskingKey: nil)[1]
                == 126)
    }

    @Test func wordWiseMaskingMatchesTheRFCDefinition() throws {
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 125, 126, 1_000] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
            let encoded = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: key)
            // RFC 6455 §5.3: transformed octet i = original octet i XOR key[i mod 4].
            let reference = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
            #expect(Array(encoded.suffix(length)) == reference, "length \(length)")
            #expect(try decodeAll(encoded, masked: true).first?.payload == payload, "length \(length)")
        }
    }

    @Test func headerAndMaskedPayloadAreTheEncodedFrame() {
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        for length in [0, 1, 31, 32, 33, 125, 126, 65_535, 65_536, 100_003] {
            let frame = WebSocketFrame(
                opcode: .binary, payload: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            #expect(
                frame.header(maskingKey: key) + WebSocketFrame.masked(frame.payload, key: key)
                    == frame.encoded(maskingKey: key), "length \(length)")
            #expect(frame.header(maskingKey: nil) + frame.payload == frame.encoded(maskingKey: nil), "length \(length)")
            #expect(frame.header(maskingKey: key).count == frame.encoded(maskingKey: key).count - length)
        }
    }

    /// A payload read straight into its frame as bytes come keeps the masking key's position
    /// across appends of any size, and the bytes after it start the next frame.
    @Test(arguments: [1, 3, 7, 4_096, 65_536, 200_000])
    func aLargeFrameArrivingInPiecesDecodesWhole(piece: Int) throws {
        let key: [UInt8] = [9, 0x80, 0xfe, 0x11]
        let large = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 3) }
        let bytes =
            WebSocketFrame(fin: false, opcode: .binary, payload: large).encoded(maskingKey: key)
            + WebSocketFrame(opcode: .continuation, payload: [1, 2, 3]).encoded(maskingKey: key)
        var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
        var frames: [WebSocketFrame] = []
        var offset = 0
        while offset < bytes.count {
            decoder.append(bytes[offset..<min(bytes.count, offset + piece)])
            offset += piece
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(frames.map(\.payload.count) == [large.count, 3])
        #expect(frames.first?.payload == large)
        #expect(frames.last?.payload == [1, 2, 3])
        #expect(frames.map(\.fin) == [false, true])
    }

    /// Chunks appended before any frame is taken, some beginning with a frame (read from the
    /// chunk directly) and ending inside the next, some ending on a frame's last byte: the
    /// frames come out whole and in order.
    @Test(arguments: [[42, 48], [42, 48, 70_056], [1, 42, 43, 70_060], [100, 70_062], [70_062]])
    func framesAppendedBeforeAnyIsTakenComeOutInOrder(cuts: [Int]) throws {
        let key: [UInt8] = [7, 1, 0xAA, 0x55]
        let payloads: [[UInt8]] = [
            Array(0..<36), [], (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }, [1], Array(0..<200),
        ]
        let bytes = payloads.flatMap { WebSocketFrame(opcode: .binary, payload: $0).encoded(maskingKey: key) }
        var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
        var from = 0
        for cut in cuts + [bytes.count] {
            decoder.append(bytes[from..<cut])
            from = cut
        }
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        #expect(frames.map(\.payload) == payloads)
    }

    /// A payload read in place (`readPayload`, as a socket's reader writes it) in pieces of odd
    /// sizes, between appends: unmasked at the right key byte, checked as text, and followed
    /// by the next frame appended after it.
    @Test func aPayloadReadInPlaceIsUnmaskedAndFollowedByTheNextFrame() throws {
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        let text = Array(String(repeating: "Grüße, ", count: 10_000).utf8)
        let frame = WebSocketFrame(opcode: .text, payload: text).encoded(maskingKey: key)
        let next = WebSocketFrame(opcode: .binary, payload: [9, 8, 7]).encoded(maskingKey: key)
        var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
        #expect(decoder.payloadAwaited == 0, "no frame is in progress")
        decoder.append(frame[..<(14 + 5)])  // the header and 5 payload bytes
        #expect(try decoder.nextFrame() == nil)
        var offset = 14 + 5
        #expect(decoder.payloadAwaited == text.count - 5)
        // A reader that finds nothing leaves the frame as it was.
        #expect(!decoder.readPayload { _ in nil })
        #expect(decoder.payloadAwaited == text.count - 5)
        for piece in [1, 3, 4_093, 30_001] {
            let read = decoder.readPayload { target in
                #expect(target.count == frame.count - offset, "the target is the payload still awaited")
                target.copyBytes(from: frame[offset..<(offset + piece)])
                return piece
            }
            #expect(read)
            offset += piece
            #expect(try decoder.nextFrame() == nil)
        }
        decoder.append(frame[offset...] + next)
        #expect(decoder.payloadAwaited == 0)
        #expect(try decoder.nextFrame() == WebSocketFrame(opcode: .text, payload: text))
        #expect(try decoder.nextFrame() == WebSocketFrame(opcode: .binary, payload: [9, 8, 7]))
        #expect(try decoder.nextFrame() == nil)
    }

    /// Invalid text read in place is refused (1007) as it would be when appended; bytes held
    /// after the frame in progress are not read over.
    @Test func invalidTextReadInPlaceIsRefusedAndHeldBytesComeFirst() throws {
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 100)
        decoder.append([0x81, 10, 0x61])  // text, 10 bytes, "a" so far
        #expect(try decoder.nextFrame() == nil)
        #expect(
            decoder.readPayload { target in
                target.copyBytes(from: [0xFF])
                return 1
            })
        #expect(throws: WebSocketProtocolError.self) { try decoder.nextFrame() }
        #expect(decoder.payloadAwaited == 0, "a refused stream is not read on")

        var held = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 100)
        // The whole of one frame and the start of the next: no frame is in progress until the
        // first is taken, so nothing is awaited and nothing is read past the held header.
        held.append([0x82, 1, 5, 0x82])
        #expect(held.payloadAwaited == 0)
        #expect(!held.readPayload { _ in 1 })
        #expect(try held.nextFrame() == WebSocketFrame(opcode: .binary, payload: [5]))
    }

    @Test func bytesMayArriveOneAtATime() throws {
        let bytes = WebSocketFrame(opcode: .text, payload: Array("Grüße".utf8)).encoded(maskingKey: [1, 2, 3, 4])
        var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 100)
        var frames: [WebSocketFrame] = []
        for byte in bytes {
            decoder.append([byte])
            if let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(frames.map(\.payload) == [Array("Grüße".utf8)])
    }

    static let violationCases: [[UInt8]] = [
        [0xC1, 0x00],  // RSV1 without an extension
        [0x83, 0x00],  // opcode 3 is reserved
        [0x09, 0x00],  // fragmented ping
        [0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126),  // control frame over 125 bytes
        [0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0],  // a masked frame from a server
    ]

    @Test("protocol violations close with 1002", arguments: violationCases)
    func violations(bytes: [UInt8]) {
        let code: UInt16 = 1002
        do {
            _ = try decodeAll(bytes)
            Issue.record("accepted \(bytes.prefix(4))")
        } catch {
            #expect((error as? WebSocketProtocolError)?.closeCode == code, "\(error)")
        }
    }

    @Test func frameSizeLimit() throws {
        let atLimit = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 1_000)).encoded(
            maskingKey: nil)
        #expect(try decodeAll(atLimit, limit: 1_000).count == 1)
        let over = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 1_001)).encoded(
            maskingKey: nil)
        #expect(throws: WebSocketProtocolError(closeCode: 1009, "a frame of 1001 bytes exceeds the limit of 1000")) {
            _ = try decodeAll(over, limit: 1_000)
        }
    }

    @Test func messageRules() throws {
        var assembler = WebSocketMessageAssembler(maximumMessage: 10)
        // Control frames may come between fragments.
        #expect(try assembler.add(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2])) == nil)
        #expect(try assembler.add(WebSocketFrame(opcode: .ping, payload: [9])) == .ping([9]))
        #expect(try assembler.add(WebSocketFrame(opcode: .continuation, payload: [3])) == .binary([1, 2, 3]))
        // A continuation without a start, a new message inside a fragmented one.
        #expect(throws: WebSocketProtocolError.self) {
            try assembler.add(WebSocketFrame(opcode: .continuation, payload: []))
        }
        _ = try assembler.add(WebSocketFrame(fin: false, opcode: .text, payload: []))
        #expect(throws: WebSocketProtocolError.self) { try assembler.add(WebSocketFrame(opcode: .text, payload: [])) }
        // Message size over fragments.
        var small = WebSocketMessageAssembler(maximumMessage: 10)
        _ = try small.add(WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6)))
        #expect(throws: WebSocketProtocolError(closeCode: 1009, "a message exceeds the limit of 10 bytes")) {
            try small.add(WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 5)))
        }
    }

    @Test func textMustBeStrictUTF8() throws {
        var assembler = WebSocketMessageAssembler(maximumMessage: 100)
        for invalid: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            #expect(throws: WebSocketProtocolError(closeCode: 1007, "a text message is not valid UTF-8")) {
                try assembler.add(WebSocketFrame(opcode: .text, payload: invalid))
            }
        }
        // A character split across fragments is fine.
        let euro = Array("€".utf8)
        _ = try assembler.add(WebSocketFrame(fin: false, opcode: .text, payload: [euro[0]]))
        #expect(try assembler.add(WebSocketFrame(opcode: .continuation, payload: Array(euro[1...]))) == .text("€"))
    }

    @Test func closeFramesAndCodes() throws {
        var assembler = WebSocketMessageAssembler(maximumMessage: 100)
        #expect(try assembler.add(WebSocketFrame(opcode: .close, payload: [])) == .close(code: 1005, reason: ""))
        let proxy = WebSocketCloseCode.payload(code: 4503, reason: "open proxy unavailable")
        #expect(
            try assembler.add(WebSocketFrame(opcode: .close, payload: proxy))
                == .close(code: 4503, reason: "open proxy unavailable"))
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000] {
            #expect(throws: WebSocketProtocolError(closeCode: 1002, "close code \(code) may not be sent")) {
                try assembler.add(
                    WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: code, reason: "")))
            }
        }
        for code: UInt16 in [1000, 1003, 1007, 1011, 1012, 1013, 1014, 3000, 4999] {
            #expect(
                try assembler.add(
                    WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: code, reason: "x")))
                    == .close(code: code, reason: "x"))
        }
        #expect(throws: WebSocketProtocolError(closeCode: 1002, "a close payload of one byte")) {
            try assembler.add(WebSocketFrame(opcode: .close, payload: [3]))
        }
        #expect(throws: WebSocketProtocolError(closeCode: 1007, "a close reason is not valid UTF-8")) {
            try assembler.add(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xC3, 0x28]))
        }
        let long = WebSocketCloseCode.payload(code: 1000, reason: String(repeating: "é", count: 100))
        #expect(long.count <= 125)
        #expect(String(validating: long[2...], as: UTF8.self) != nil, "truncated on a character boundary")
    }
}
