import SybilCore
import Testing

@Suite("Contract readers", .timeLimit(.minutes(2)))
struct JSONObjectReaderTests {
    private func reader(_ text: String) throws -> JSONObjectReader {
        try JSONObjectReader(JSONReader().parse(text), at: .root)
    }

    @Test func duplicateKeysAreRejectedWithTheirPath() throws {
        let error = try #require(throws: JSONError.self) { try reader(#"{"a":1,"a":2}"#) }
        #expect(error.description == "a: duplicate key 'a'")
    }

    @Test(
        "a duplicate is found in small and large objects alike (16 and 17 members switch the method)",
        arguments: [2, 16, 17, 100_000])
    func duplicateKeysInObjectsOfEverySize(count: Int) throws {
        let members = (0..<count).map { JSONMember("k\($0)", 1) }
        #expect(throws: Never.self) { try JSONObjectReader(.object(JSONObject(members)), at: .root) }
        let duplicated = members + [JSONMember("k\(count / 2)", 2)]
        let error = try #require(throws: JSONError.self) {
            try JSONObjectReader(.object(JSONObject(duplicated)), at: .root)
        }
        #expect(error.description == "k\(count / 2): duplicate key 'k\(count / 2)'")
    }

    @Test func exactKeysNameTheMissingAndTheExtraMember() throws {
        let object = try reader(#"{"a":1,"c":2}"#)
        let missing = try #require(throws: JSONError.self) { try object.requireExactKeys(["a", "b"]) }
        #expect(missing.path.description == "b")
        #expect(missing.message == "required member is missing")
        let extra = try #require(throws: JSONError.self) { try object.requireExactKeys(["a"]) }
        #expect(extra.path.description == "c")
        #expect(extra.message.hasPrefix("unexpected member; allowed members are \"a\""))
    }

    @Test func integerAcceptsOnlyIntegerLiterals() throws {
        let object = try reader(#"{"i":3,"f":3.0,"e":3e0,"s":"3","big":9007199254740992}"#)
        #expect(try object.integer("i") == 3)
        let fraction = try #require(throws: JSONError.self) { try object.integer("f") }
        #expect(fraction.description == "f: expected an integer literal without fraction or exponent, got 3.0")
        #expect(throws: JSONError.self) { try object.integer("e") }
        let string = try #require(throws: JSONError.self) { try object.integer("s") }
        #expect(string.message == "expected an integer, got a string")
        let range = try #require(throws: JSONError.self) {
            try object.integer("big", in: JSONValueReader.safeIntegerRange)
        }
        #expect(range.message == "integer 9007199254740992 is outside -9007199254740991…9007199254740991")
    }

    @Test func stringFlavours() throws {
        let object = try reader(#"{"blank":"  ","empty":"","n":null,"ok":"x"}"#)
        #expect(try object.nonBlankString("ok") == "x")
        #expect(throws: JSONError.self) { try object.nonBlankString("blank") }
        #expect(try object.nonEmptyString("blank") == "  ")
        #expect(throws: JSONError.self) { try object.nonEmptyString("empty") }
        #expect(try object.nullableString("n") == nil)
        #expect(throws: JSONError.self) { try object.nullableString("missing") }
        #expect(try object.optionalNonEmptyString("missing") == nil)
        #expect(throws: JSONError.self) { try object.optionalNonEmptyString("empty") }
    }

    @Test func nonObjectIsRejected() throws {
        let error = try #require(throws: JSONError.self) { try JSONObjectReader([1], at: .root.appending(key: "x")) }
        #expect(error.description == "x: expected an object, got an array")
    }
}
