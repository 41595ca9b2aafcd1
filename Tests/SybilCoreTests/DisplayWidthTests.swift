import SybilCore
import Testing

@Suite("Display width", .timeLimit(.minutes(2)))
struct DisplayWidthTests {
    @Test(
        arguments: [
            ("", 0), ("abc", 3), ("Grüße, Straße", 13), ("中文", 4), ("日本語のテキスト", 16), ("한국어", 6),
            ("ＡＢ", 4), ("e\u{301}", 1), ("\u{301}", 0), ("a\u{200B}b", 2), ("👍", 2), ("👍🏽", 2),
            ("👨‍👩‍👧‍👦", 2), ("🇩🇪", 2), ("❤️", 2), ("\u{1B}", 0), ("x中y", 4), ("soft\u{AD}hyphen", 10), ("\u{A0}", 1),
        ])
    func columns(text: String, expected: Int) {
        #expect(DisplayWidth.columns(of: text) == expected)
    }
}
