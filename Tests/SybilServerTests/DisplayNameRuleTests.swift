import Foundation
import SybilCore
import SybilWire
import Testing

@testable import SybilServer

/// Display names and file names follow one rule for the characters they may hold: no control
/// characters (NUL among them), line or paragraph separators or bidirectional controls.
@Suite("Display names: the file-name character rule", .timeLimit(.minutes(2)))
struct DisplayNameRuleTests {
    static let id = "1b4e28ba-2fa1-4d2e-883f-0016d3cca427"
    static let hiding: [String] = [
        "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9F}", "\u{061C}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}",
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
    ]

    private static func user(_ name: String) -> JSONValue {
        ["id": .string(id), "kind": "user", "createdAt": 1_800_000_000_000, "displayName": .string(name)]
    }

    @Test func aDisplayNameIsRefusedForEveryCharacterAFileNameIsRefusedFor() {
        for character in Self.hiding {
            let name = "Ana\(character)lee"
            #expect(!UploadNames.isFileName(name), "\(character.unicodeScalars.map(\.value))")
            #expect(throws: JSONError.self, "\(character.unicodeScalars.map(\.value))") {
                try Record.decode(Self.user(name), at: .root)
            }
            #expect(throws: JSONError.self) {
                try Record(id: Self.id, createdAt: 1, payload: .user(displayName: name))
            }
        }
        for name in ["Ana", "Prüfung", "👩‍💻 dev", "a\u{200D}b", "عربي", "שלום"] {
            #expect(UploadNames.isFileName(name))
            #expect(throws: Never.self) { try Record.decode(Self.user(name), at: .root) }
        }
    }

    @Test func theRefusalNamesTheFieldAndTheCharacter() throws {
        let error = try #require(throws: JSONError.self) {
            try Record.decode(Self.user("evil\u{202E}gpj.exe"), at: .root)
        }
        #expect(error.path.description == "displayName")
        #expect(error.message.contains("U+202E"), "\(error)")
    }

    @Test func theRecordsRouteRejectsTheRecordNamingDisplayName() async throws {
        let harness = try AppHarness()
        let body = JSONWriter().string(from: ["records": [Self.user("A\u{0}na")]])
        let response = await harness.send("POST", "/records/batch", json: body)
        #expect(response.status == 200)
        let results = try RecordBatchAnswer.decode(try json(response), at: .root).results
        #expect(results.map(\.status) == [.rejected])
        #expect(results.first?.error?.code == "invalid_record")
        #expect(results.first?.error?.param == "records[0].displayName")
        #expect(results.first?.error?.message.contains("U+0000") == true)
    }
}
