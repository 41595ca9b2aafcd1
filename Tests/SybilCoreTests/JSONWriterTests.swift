import SybilCore
import Testing

@Suite("JSON writer", .timeLimit(.minutes(2)))
struct JSONWriterTests {
    @Test func escapesWhatJSONAndJavaScriptNeed() {
        let text = "q\"b\\n\nr\rt\tb\u{08}f\u{0C}nul\u{0}us\u{1F}del\u{7F}ls\u{2028}ps\u{2029}é€🎉"
        #expect(
            JSONWriter.quoted(text)
                == #""q\"b\\n\nr\rt\tb\bf\fnul\u0000us\u001fdel\u007fls\u2028ps\u2029é€🎉""#)
    }

    @Test func escapesC1ControlsAsTheC0Ones() throws {
        let text = "a\u{80}b\u{9B}2Jc\u{9F}\u{A0}é"
        #expect(JSONWriter.quoted(text) == "\"a\\u0080b\\u009b2Jc\\u009f\u{A0}é\"")
        #expect(try JSONReader().parse(JSONWriter().bytes(from: .string(text))) == .string(text))
    }

    /// `--json` on a terminal: an override in a server's text is escaped, not obeyed (Trojan
    /// Source), and reads back exact; the implicit marks and the scalars around the two ranges
    /// are copied.
    @Test func escapesTheExplicitBidiControls() throws {
        let text = "a\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}b\u{2066}\u{2067}\u{2068}\u{2069}c"
        #expect(JSONWriter.quoted(text) == #""a\u202a\u202b\u202c\u202d\u202eb\u2066\u2067\u2068\u2069c""#)
        #expect(try JSONReader().parse(JSONWriter().bytes(from: .string(text))) == .string(text))
        let kept = "\u{200E}\u{200F}\u{061C}\u{2027}\u{202F}\u{2065}\u{206A}\u{20AC}"
        #expect(JSONWriter.quoted(kept) == "\"" + kept + "\"")
    }

    @Test func compactAndPrettyLayouts() {
        let value: JSONValue = ["a": [1, true, nil], "b": [:], "c": [], "d": ["e": "f"]]
        #expect(JSONWriter().string(from: value) == #"{"a":[1,true,null],"b":{},"c":[],"d":{"e":"f"}}"#)
        #expect(
            JSONWriter(style: .pretty).string(from: value) == """
                {
                  "a": [
                    1,
                    true,
                    null
                  ],
                  "b": {},
                  "c": [],
                  "d": {
                    "e": "f"
                  }
                }
                """)
    }

    @Test func outputParsesBackToTheSameValue() throws {
        let value: JSONValue = [
            "text": "line\nbreak \u{2028} \"quoted\" \u{1} 🎉", "n": try JSONReader().parse("-1.5e-7"), "k": [[], [:]],
        ]
        #expect(try JSONReader().parse(JSONWriter().bytes(from: value)) == value)
    }
}
