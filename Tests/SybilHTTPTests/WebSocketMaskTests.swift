import Testing

@testable import SybilHTTP

/// The word-wise masking routine (`WebSocketFrame.mask`) against the per-byte definition of
/// RFC 6455 §5.3: byte i of a payload is XORed with key[i mod 4].
@Suite("WebSocket masking, word at a time")
struct WebSocketMaskTests {
    static let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
    static let key32 = UInt32(0x3d21_fa37)

    /// The reference: byte by byte, the key's position continuing from `phase`.
    static func reference(_ bytes: [UInt8], key: [UInt8], phase: Int) -> [UInt8] {
        bytes.enumerated().map { $0.element ^ key[($0.offset + phase) % 4] }
    }

    static func payload(_ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 11) }
    }

    /// Masks `bytes` placed at `alignment` bytes into a buffer (so the words are loaded from
    /// every alignment), into a target at another alignment, and in place.
    static func masked(_ bytes: [UInt8], alignment: Int, phase: Int) -> (copied: [UInt8], inPlace: [UInt8]) {
        var source = [UInt8](repeating: 0xEE, count: bytes.count + 16)
        source.replaceSubrange(alignment..<(alignment + bytes.count), with: bytes)
        var target = [UInt8](repeating: 0xEE, count: bytes.count + 16)
        let targetAlignment = (alignment + 3) % 8
        source.withUnsafeBytes { raw in
            target.withUnsafeMutableBytes { out in
                WebSocketFrame.mask(
                    UnsafeRawBufferPointer(rebasing: raw[alignment..<(alignment + bytes.count)]),
                    into: UnsafeMutableRawBufferPointer(
                        rebasing: out[targetAlignment..<(targetAlignment + bytes.count)]),
                    key: key32, phase: phase)
            }
        }
        // Nothing around the target is touched.
        #expect(target[..<targetAlignment].allSatisfy { $0 == 0xEE })
        #expect(target[(targetAlignment + bytes.count)...].allSatisfy { $0 == 0xEE })
        source.withUnsafeMutableBytes { raw in
            let region = UnsafeMutableRawBufferPointer(rebasing: raw[alignment..<(alignment + bytes.count)])
            WebSocketFrame.mask(UnsafeRawBufferPointer(region), into: region, key: key32, phase: phase)
        }
        return (
            Array(target[targetAlignment..<(targetAlignment + bytes.count)]),
            Array(source[alignment..<(alignment + bytes.count)])
        )
    }

    @Test func everyLengthAlignmentAndPhaseMatchesThePerByteReference() {
        for length in Array(0...17) + [31, 32, 33, 63, 64, 65, 1_000, 4_099, 65_537] {
            let bytes = Self.payload(length)
            for alignment in 0..<8 {
                for phase in 0..<4 {
                    let expected = Self.reference(bytes, key: Self.key, phase: phase)
                    let (copied, inPlace) = Self.masked(bytes, alignment: alignment, phase: phase)
                    #expect(copied == expected, "length \(length) alignment \(alignment) phase \(phase)")
                    #expect(inPlace == expected, "length \(length) alignment \(alignment) phase \(phase)")
                }
            }
        }
    }

    /// A payload masked in two calls, the second continuing the key's rotation from where the
    /// first stopped (as the decoder does when a payload arrives in pieces), equals one pass.
    @Test func theKeyRotationContinuesAcrossCalls() {
        for length in [0, 1, 5, 17, 40, 1_029] {
            let bytes = Self.payload(length)
            let expected = Self.reference(bytes, key: Self.key, phase: 0)
            for split in 0...length {
                var output = [UInt8](repeating: 0, count: length)
                bytes.withUnsafeBytes { raw in
                    output.withUnsafeMutableBytes { out in
                        WebSocketFrame.mask(
                            UnsafeRawBufferPointer(rebasing: raw[..<split]),
                            into: UnsafeMutableRawBufferPointer(rebasing: out[..<split]), key: Self.key32, phase: 0)
                        WebSocketFrame.mask(
                            UnsafeRawBufferPointer(rebasing: raw[split...]),
                            into: UnsafeMutableRawBufferPointer(rebasing: out[split...]), key: Self.key32,
                            phase: split)
                    }
                }
                #expect(output == expected, "length \(length) split at \(split)")
            }
        }
    }

    /// The public entry points (a masked copy, masking in place from an offset) agree with the
    /// reference too, and masking twice gives the payload back.
    @Test func maskedCopyAndApplyMaskMatchTheReference() {
        for length in Array(0...17) + [100, 4_096, 70_001] {
            let bytes = Self.payload(length)
            let expected = Self.reference(bytes, key: Self.key, phase: 0)
            #expect(WebSocketFrame.masked(bytes, key: Self.key) == expected, "length \(length)")
            #expect(WebSocketFrame.masked(expected, key: Self.key) == bytes, "length \(length)")
            for start in [0, 1, 2, 3, 5, 8, 9].filter({ $0 <= length }) {
                var inPlace = bytes
                WebSocketFrame.applyMask(Self.key, to: &inPlace, from: start)
                let tail = Self.reference(Array(bytes[start...]), key: Self.key, phase: 0)
                #expect(Array(inPlace[..<start]) == Array(bytes[..<start]), "length \(length) from \(start)")
                #expect(Array(inPlace[start...]) == tail, "length \(length) from \(start)")
            }
        }
    }

    /// A payload masked a piece at a time (each piece starting at a multiple of 4, as the
    /// client sends a large frame) equals the payload masked in one pass.
    @Test func piecesStartingAtMultiplesOfFourMaskLikeTheWholePayload() {
        let bytes = Self.payload(70_001)
        let expected = Self.reference(bytes, key: Self.key, phase: 0)
        for piece in [4, 12, 4_096, 65_536] {
            var joined: [UInt8] = []
            for start in stride(from: 0, to: bytes.count, by: piece) {
                joined += WebSocketFrame.masked(bytes[start..<min(start + piece, bytes.count)], key: Self.key)
            }
            #expect(joined == expected, "pieces of \(piece)")
        }
    }
}
