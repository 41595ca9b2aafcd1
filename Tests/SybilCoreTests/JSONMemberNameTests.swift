import SybilCore
import Testing

/// RFC 8259 compares member names by code points; Swift's `String ==` compares by Unicode
/// canonical equivalence, under which the Kelvin sign U+212A equals `K` and `é` equals
/// `e` + U+0301. These cases pin that every reader here compares code points.
@Suite("JSON member names compare code points", .timeLimit(.minutes(2)))
struct JSONMemberNameTests {
    private func reader(_ text: String) throws -> JSONObjectReader {
        try JSONObjectReader(JSONReader().parse(text), at: .root)
    }

    @Test func aKelvinSignIsNotTheLetterK() throws {
        let object = try reader(#"{"call\u212aey":"c-1"}"#)
        #expect(object.object["callKey"] == nil)
        #expect(object.optionalValue("callKey") == nil)
        let missing = try #require(throws: JSONError.self) { try object.string("callKey") }
        #expect(missing.description == "callKey: required member is missing")
        let exact = try #require(throws: JSONError.self) { try object.requireExactKeys(["callKey"]) }
        #expect(exact.description == "callKey: required member is missing")
        let unknown = try #require(throws: JSONError.self) { try object.rejectUnknownKeys(["callKey"]) }
        #expect(unknown.message.hasPrefix("unexpected member"))
        #expect(try object.string("call\u{212A}ey") == "c-1")
    }

    @Test(
        "names that differ in code points are two members, in small and large objects alike",
        arguments: [0, 20])
    func canonicallyEquivalentNamesAreNotDuplicates(padding: Int) throws {
        let extra = (0..<padding).map { ",\"p\($0)\":0" }.joined()
        let object = try reader(#"{"xK":1,"x\u212a":2,"\u00e9":3,"e\u0301":4"# + extra + "}")
        #expect(try object.integer("xK") == 1)
        #expect(try object.integer("x\u{212A}") == 2)
        #expect(try object.integer("\u{E9}") == 3)
        #expect(try object.integer("e\u{301}") == 4)
    }

    @Test(arguments: [0, 20])
    func identicalCodePointsAreStillDuplicates(padding: Int) throws {
        let extra = (0..<padding).map { "\"p\($0)\":0," }.joined()
        let error = try #require(throws: JSONError.self) { try reader("{" + extra + #""x\u212a":1,"x\u212a":2}"#) }
        #expect(error.message.hasPrefix("duplicate key"))
    }

    @Test(
        "exact key sets compare code points and name the first missing, else the first extra member",
        arguments: [8, 70])
    func exactKeySets(count: Int) throws {
        let keys = (0..<count).map { "k\($0)K" }
        let exact = JSONObject(keys.reversed().map { JSONMember($0, 1) })
        #expect(throws: Never.self) { try JSONObjectReader(.object(exact), at: .root).requireExactKeys(keys) }
        var kelvin = exact
        kelvin.members[0].key = "k\(count - 1)\u{212A}"
        let missing = try #require(throws: JSONError.self) {
            try JSONObjectReader(.object(kelvin), at: .root).requireExactKeys(keys)
        }
        #expect(missing.path.description == "k\(count - 1)K")
        #expect(missing.message == "required member is missing")
        var extra = exact
        extra.members.append(JSONMember("k0\u{212A}", 2))
        let unexpected = try #require(throws: JSONError.self) {
            try JSONObjectReader(.object(extra), at: .root).requireExactKeys(keys)
        }
        #expect(unexpected.message.hasPrefix("unexpected member"))
        #expect(Array(unexpected.path.description.utf8) == Array(#"["k0\#u{212A}"]"#.utf8))
    }

    @Test func valuesCompareCodePoints() {
        let kelvin: JSONValue = .string("\u{212A}")
        let letter: JSONValue = .string("K")
        #expect(kelvin != letter)
        #expect(Set([kelvin, letter]).count == 2)
        let composed: JSONValue = ["\u{E9}": 1]
        let decomposed: JSONValue = ["e\u{301}": 1]
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(JSONValue.string("caf\u{E9}") == .string("caf\u{E9}"))
    }

    @Test func memberNamesCompareAndHashByCodePoints() {
        #expect(JSONMemberName("K") != JSONMemberName("\u{212A}"))
        #expect(JSONMemberName("\u{E9}") != JSONMemberName("e\u{301}"))
        #expect(JSONMemberName("callKey") == JSONMemberName("callKey"))
        #expect(Set(["K", "\u{212A}", "K"].map(JSONMemberName.init)).count == 2)
        #expect(!JSONMemberName.equal("xK", "x\u{212A}"))
        #expect(JSONMemberName.equal("", ""))
    }
}
