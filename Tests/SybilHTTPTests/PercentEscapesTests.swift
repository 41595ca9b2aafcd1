import SybilHTTP
import Testing

/// The one percent-decoder's readings.
@Suite("Percent escapes", .timeLimit(.minutes(2)))
struct PercentEscapesTests {
    private func decode(
        _ text: String, plusIsSpace: Bool, _ broken: PercentEscapes.BrokenEscape,
        allowed: (UInt8) -> Bool = { _ in true }
    ) -> String? {
        PercentEscapes.decode(Substring(text).utf8, plusIsSpace: plusIsSpace, brokenEscape: broken, allowed: allowed)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func plusIsASpaceOnlyWhenAsked() {
        #expect(decode("sp+x%2B", plusIsSpace: false, .keep) == "sp+x+")
        #expect(decode("sp+x%2B", plusIsSpace: true, .keep) == "sp x+")
    }

    @Test func brokenEscapesAreKeptOrRefused() {
        for broken in ["%", "%4", "%G1", "a%4"] {
            #expect(decode(broken, plusIsSpace: false, .keep) == broken)
            #expect(decode(broken, plusIsSpace: false, .refuse) == nil, "\(broken)")
        }
        #expect(decode("%c3%BC%41", plusIsSpace: false, .refuse) == "üA", "either case of hex digits")
    }

    @Test func unescapedBytesOutsideTheAllowedSetAreRefused() {
        #expect(decode("a%20b", plusIsSpace: false, .refuse, allowed: { $0 != 0x20 }) == "a b")
        #expect(decode("a b", plusIsSpace: false, .refuse, allowed: { $0 != 0x20 }) == nil)
    }
}
