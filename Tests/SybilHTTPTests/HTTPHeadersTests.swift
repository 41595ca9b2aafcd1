import SybilHTTP
import Testing

@Suite("HTTP header fields", .timeLimit(.minutes(2)))
struct HTTPHeadersTests {
    @Test func namesCompareIgnoringASCIICaseOnly() {
        let headers = HTTPHeaders([("Content-Type", "a"), ("content-type", "b")])
        #expect(headers["CONTENT-TYPE"] == "a")
        #expect(headers["content-typ"] == nil)
        #expect(headers["content-typee"] == nil)
        // Only letters fold: '@' (0x40) | 0x20 is '`' (0x60), which is not a letter.
        #expect(HTTPHeaders([("a@", "x")])["a`"] == nil)
        // Non-ASCII names never fold onto ASCII ones.
        #expect(HTTPHeaders([("K", "x")])["\u{212A}"] == nil)
    }

    @Test func appendKeepsEarlierFieldsAndSetReplacesThem() {
        var headers = HTTPHeaders()
        headers.append("X-A", "1")
        headers.append("x-a", "2")
        #expect(headers.fields.map(\.value) == ["1", "2"])
        headers.set("X-a", "3")
        #expect(headers.fields.map(\.name) == ["X-a"] && headers["x-A"] == "3")
    }

    @Test func equalityKeepsOrderAndSpelling() {
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) == HTTPHeaders([("A", "1"), ("B", "2")]))
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != HTTPHeaders([("B", "2"), ("A", "1")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("a", "1")]))
        #expect(Set([HTTPHeaders([("A", "1")]), HTTPHeaders([("A", "1")])]).count == 1)
    }

    @Test func listContainsFindsATokenAmongCommaSeparatedElements() {
        let headers = HTTPHeaders([("Connection", "keep-alive,\t Upgrade ")])
        #expect(headers.listContains("connection", token: "upgrade"))
        #expect(headers.listContains("Connection", token: "KEEP-ALIVE"))
        #expect(!headers.listContains("Connection", token: "upgrad"))
        #expect(!headers.listContains("Connection", token: "close"))
        #expect(!headers.listContains("Upgrade", token: "websocket"))
        #expect(!HTTPHeaders([("Connection", "")]).listContains("Connection", token: ""))
        #expect(!HTTPHeaders([("Connection", "Upgrade-Insecure")]).listContains("Connection", token: "upgrade"))
    }
}
