import SybilCore
import Testing

@Suite("Hex", .timeLimit(.minutes(2)))
struct HexTests {
    @Test func paddedWordsKeepAllSixteenDigits() {
        #expect(Hex.padded(0) == "0000000000000000")
        #expect(Hex.padded(0xF) == "000000000000000f")
        #expect(Hex.padded(0x0123_4567_89AB_CDEF) == "0123456789abcdef")
        #expect(Hex.padded(UInt64.max) == "ffffffffffffffff")
    }

    @Test func bytesBecomeTwoDigitsEachInOrder() {
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.string([0x00, 0x0A, 0xF0, 0xFF]) == "000af0ff")
    }
}
