import SybilCore
import Testing

@Suite("Strict JSON reader", .timeLimit(.minutes(2)))
struct JSONReaderTests {
    private func parse(_ text: String, limits: JSONReader.Limits = .standard) throws(JSONError) -> JSONValue {
        try JSONReader(limits: limits).parse(Array(text.utf8))
    }

    private func syntaxError(_ text: String) -> JSONError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsEveryKindOfValue() throws {
        let value = try parse(#" {"s":"a\u00e9\n","n":-12.5e3,"i":7,"t":true,"f":false,"z":null,"a":[1,[]],"o":{}} "#)
        let expected: JSONValue = [
            "s": "aé\n", "n": try JSONReader().parse("-12.5e3"), "i": 7, "t": true, "f": false,
            "z": nil, "a": [1, []], "o": [:],
        ]
        #expect(value == expected)
    }

    @Test func keepsMemberOrder() throws {
        guard case .object(let object) = try parse(#"{"b":1,"a":2,"c":3}"#) else {
            Issue.record("expected an object")
            return
        }
        #expect(object.members.map(\.key) == ["b", "a", "c"])
    }

    @Test(
        "rejects malformed text that lenient parsers accept",
        arguments: [
            ("[1,]", "trailing comma before ']'"),
            (#"{"a":0,}"#, "trailing comma before '}'"),
            ("01", "leading zero"),
            ("-", "digit after '-'"),
            ("1.", "digit after the decimal point"),
            ("1e", "digit in its exponent"),
            (".5", "expected a value"),
            ("+1", "expected a value"),
            ("NaN", "expected a value"),
            ("[1 2]", "expected ',' or ']'"),
            (#"{"a" 1}"#, "expected ':'"),
            ("{'a':1}", "member name in quotes"),
            ("\"a\tb\"", "control character 0x09"),
            ("\"abc", "not terminated"),
            (#""\x""#, "escape"),
            (#""\u12""#, "escape"),
            ("tru", "expected 'true'"),
            ("nul", "expected 'null'"),
            ("[] []", "after the end of the JSON value"),
            ("", "unexpected end of input"),
            ("   ", "unexpected end of input"),
        ])
    func rejectsMalformed(text: String, messageFragment: String) {
        guard let error = syntaxError(text) else {
            Issue.record("accepted \(text.debugDescription)")
            return
        }
        #expect(error.kind == .syntax)
        #expect(error.offset != nil)
        #expect(error.message.contains(messageFragment), "\(error)")
    }

    @Test func rejectsAByteOrderMark() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{}".utf8)
        #expect(throws: JSONError.self) { try JSONReader().parse(bytes) }
    }

    @Test func rejectsInvalidUTF8AndLoneSurrogates() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xE2, 0x82, 0x22],  // truncated
        ] {
            #expect(throws: JSONError.self, "\(bytes)") { try JSONReader().parse(bytes) }
        }
        for text in [#""\uD800""#, #""\uDC00""#, #""\uD800\u0041""#, #""\uD800x""#] {
            #expect(syntaxError(text) != nil, "\(text)")
        }
        #expect((try? parse(#""\uD834\uDD1E""#)) == .string("𝄞"))
    }

    @Test func errorsCarryTheByteOffsetAndThePath() {
        let text = #"{"timeline":[{},{},{},{"sourceOrder":[1.5e,2]}]}"#
        guard let error = syntaxError(text) else {
            Issue.record("accepted malformed number")
            return
        }
        #expect(error.path.description == "timeline[3].sourceOrder[0]")
        // Byte 42 is the ',' where the exponent's digit should be.
        #expect(error.offset == 42, "\(error)")
        #expect(error.description == "timeline[3].sourceOrder[0]: a number needs a digit in its exponent (at byte 42)")
    }

    @Test func errorInsideAnObjectKeyNamesTheParent() {
        let error = syntaxError(#"{"a":{"b":[tru]}}"#)
        #expect(error?.path.description == "a.b[0]")
    }

    @Test func depthLimitBoundary() throws {
        let limits = JSONReader.Limits(maxDepth: 512)
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try parse(atLimit, limits: limits) }
        let justUnder = String(repeating: "[", count: 511) + String(repeating: "]", count: 511)
        #expect(throws: Never.self) { try parse(justUnder, limits: limits) }
        let over = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = try #require(throws: JSONError.self) { try parse(over, limits: limits) }
        #expect(error.kind == .limit)
        #expect(error.offset == 512)
        #expect(error.message == "nesting is deeper than the limit of 512 levels")
    }

    @Test func objectsCountTowardsDepth() throws {
        let over = String(repeating: #"{"a":"#, count: 3) + "1" + String(repeating: "}", count: 3)
        let error = try #require(throws: JSONError.self) { try parse(over, limits: .init(maxDepth: 2)) }
        #expect(error.kind == .limit)
        #expect(error.path.description == "a.a")
    }

    @Test func hundredThousandNestedArraysFailCleanly() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONError.self) { try parse(deep) }
        #expect(error.kind == .limit)
        let unterminated = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError.self) { try parse(unterminated) }
    }

    @Test func sizeLimitBoundary() throws {
        let limits = JSONReader.Limits(maxBytes: 10)
        let atLimit = #"[12345678]"#  // 10 bytes
        #expect(throws: Never.self) { try parse(atLimit, limits: limits) }
        #expect(throws: Never.self) { try parse("[1234567]", limits: limits) }
        let error = try #require(throws: JSONError.self) { try parse("[123456789]", limits: limits) }
        #expect(error.kind == .limit)
        #expect(error.message == "document is 11 bytes; the limit is 10 bytes")
    }

    @Test func numbersStayExact() throws {
        let value = try parse("[9007199254740993, 1, 1.0, 1e2, -0, 18446744073709551615]")
        guard case .array(let items) = value else {
            Issue.record("expected an array")
            return
        }
        let numbers = items.compactMap { item -> JSONNumber? in
            if case .number(let number) = item { return number }
            return nil
        }
        #expect(numbers.map(\.literal) == ["9007199254740993", "1", "1.0", "1e2", "-0", "18446744073709551615"])
        #expect(numbers.map(\.isIntegerLiteral) == [true, true, false, false, true, true])
        #expect(numbers[0].int64Value == 9_007_199_254_740_993)
        #expect(numbers[2].int64Value == nil, "1.0 is not an integer literal")
        #expect(numbers[5].int64Value == nil)
        #expect(numbers[5].uint64Value == .max)
    }

    @Test func parsesSlicesAndOtherCollectionsInPlace() throws {
        let bytes = Array("xx[1,{\"a\":true}]yy".utf8)
        #expect(try JSONReader().parse(bytes[2..<16]) == [1, ["a": true]])
        #expect(try JSONReader().parse(Array("[1]".utf8).reversed().reversed()) == [1])
        let error = try #require(throws: JSONError.self) { try JSONReader().parse(bytes[2..<15]) }
        #expect(error.offset == 13, "offsets count from the start of the slice")
    }

    @Test func stringEscapesDecode() throws {
        let value = try parse(#""\"\\\/\b\f\n\r\t\u0000\u00e9\u20ac""#)
        #expect(value == .string("\"\\/\u{8}\u{c}\n\r\t\u{0}é€"))
    }
}
