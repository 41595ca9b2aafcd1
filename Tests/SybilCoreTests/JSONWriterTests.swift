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
