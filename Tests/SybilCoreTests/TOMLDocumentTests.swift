import SybilCore
import Testing

/// The TOML subset config.toml uses: read strictly, errors at their line and column.
@Suite("TOML documents", .timeLimit(.minutes(2)))
struct TOMLDocumentTests {
    @Test func tablesKeysAndValues() throws {
        let document = try TOMLDocument(
            parsing: """
                # a comment
                default_profile = "local"   # trailing comment

                [profiles.local]
                base_url = "http://127.0.0.1:11434"
                "quoted key" = 'C:\\literal'
                port = 1_000
                on = true
                list = [ "a",
                  "b", ]   # arrays span lines
                headers = { "X-A" = "1", b = "\\u00e9\\n" }
                """)
        #expect(document.root["default_profile"] == .string("local"))
        guard case .table(let profiles)? = document.root["profiles"], case .table(let local)? = profiles["local"] else {
            Issue.record("no [profiles.local]")
            return
        }
        #expect(local.keys == ["base_url", "quoted key", "port", "on", "list", "headers"])
        #expect(local["quoted key"] == .string("C:\\literal"))
        #expect(local["port"] == .integer(1000))
        #expect(local["on"] == .boolean(true))
        #expect(local["list"] == .array([.string("a"), .string("b")]))
        var headers = TOMLDocument.Table()
        headers["X-A"] = .string("1")
        headers["b"] = .string("é\n")
        #expect(local["headers"] == .table(headers))
        #expect(try TOMLDocument(parsing: document.formatted()) == document, "what is written reads back the same")
    }

    @Test(
        "errors name the line and column",
        arguments: [
            ("a = 1\na = 2\n", "line 2, column 1: the key a is defined twice"),
            ("[t]\n[t]\n", "line 2, column 1: the table [t] is defined twice"),
            ("a = \"open\n", "line 1, column 10: the string is not closed with \" on its line"),
            ("a = 01\n", "line 1, column 5: a number may not start with 0"),
            ("a = 1.5\n", "line 1, column 6: only whole numbers are supported here"),
            ("a = 9223372036854775808\n", "line 1, column 5: the number 9223372036854775808 is out of range"),
            ("a = \"\\q\"\n", "line 1, column 8: \\q is not an escape (use \\\\ for a backslash)"),
            ("[[t]]\n", "line 1, column 2: arrays of tables ([[…]]) are not supported here"),
            ("a = 1 b = 2\n", "line 1, column 7: expected the end of the line"),
            ("a = { b = 1\n", "line 1, column 5: an inline table must end with } on its line"),
            ("a = 1\na.b = 2\n", "line 2, column 1: a already holds a value, not a table"),
            ("a = \"\u{7}\"\n", "line 1, column 6: a control character must be escaped in a string"),
            ("= 1\n", "line 1, column 1: expected a key (letters, digits, - or _, or a quoted key)"),
        ])
    func errors(text: String, message: String) {
        #expect(throws: TOMLDocument.ParseError.self) { try TOMLDocument(parsing: text) }
        do {
            _ = try TOMLDocument(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func nestingIsBoundedAndTheLargestIntegerIsRead() throws {
        let deep = "a = " + String(repeating: "[", count: 257) + String(repeating: "]", count: 257) + "\n"
        #expect(throws: TOMLDocument.ParseError.self) { try TOMLDocument(parsing: deep) }
        let fits = "a = " + String(repeating: "[", count: 256) + String(repeating: "]", count: 256) + "\n"
        _ = try TOMLDocument(parsing: fits)
        #expect(try TOMLDocument(parsing: "a = 9223372036854775807").root["a"] == .integer(.max))
        #expect(try TOMLDocument(parsing: "a = -9223372036854775808").root["a"] == .integer(.min))
    }
}
