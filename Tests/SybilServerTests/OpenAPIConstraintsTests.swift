import Foundation
import SybilCore
import SybilWire
import Testing

@testable import SybilServer

/// The patterns `docs/api/openapi.yaml` states for cursors, upload ids and file names are the
/// rules the server enforces, checked value by value at their edges: a tool that generates
/// requests from the document finds none the document calls valid and the server refuses.
@Suite("OpenAPI constraints match the server", .timeLimit(.minutes(2)))
struct OpenAPIConstraintsTests {
    private static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/api/openapi.yaml")

    /// The single-quoted `pattern:` of the schema `name` under `components: schemas:`.
    private static func pattern(ofSchema name: String) throws -> NSRegularExpression {
        let lines = try String(contentsOf: document, encoding: .utf8).split(separator: "\n")
        guard let start = lines.firstIndex(where: { $0 == "    \(name):" }) else {
            Issue.record("openapi.yaml has no schema \(name)")
            throw CancellationError()
        }
        for line in lines[(start + 1)...] {
            if line.hasPrefix("    "), !line.hasPrefix("     ") { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("pattern: '"), trimmed.hasSuffix("'") else { continue }
            let quoted = trimmed.dropFirst("pattern: '".count).dropLast()
            return try NSRegularExpression(pattern: quoted.replacingOccurrences(of: "''", with: "'"))
        }
        Issue.record("schema \(name) has no pattern")
        throw CancellationError()
    }

    private static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test func theCursorPatternIsExactlyTheCursorsTheServerTakesBack() throws {
        let regex = try Self.pattern(ofSchema: "Cursor")
        let samples = [
            "c-000000000", "c-000000042", "c-999999999", "c-1000000000", "c-0000000042", "c-0100000000",
            "c-9223372036854775807", "c-9223372036854775808", "c-9223372036854775799", "c-9223372036854775810",
            "c-9999999999999999999", "c-1000000000000000000", "c-999999999999999999", "c-09223372036854775807",
            "c-8999999999999999999", "c-9223372036854775700", "c-42", "c-", "c--00000001", "c-+00000001",
            "C-000000001", "c-00000000a", "c-000000001 ",
        ]
        for text in samples {
            #expect(Self.matches(regex, text) == (AgentRoomCursor.sequence(of: text) != nil), "\(text)")
        }
        // Every power of two and of ten, one below and one above each: every digit count.
        var values: [Int64] = [0, Int64.max]
        for shift in 0..<63 { values += [(1 << shift) - 1, 1 << shift, (1 << shift) + 1] }
        var power: Int64 = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1]
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        for value in values where value >= 0 {
            let text = AgentRoomCursor.cursor(value).rawValue
            #expect(Self.matches(regex, text), "\(text)")
            let padded = "c-0" + text.dropFirst(2)
            #expect(Self.matches(regex, padded) == (AgentRoomCursor.sequence(of: padded) != nil), "\(padded)")
        }
    }

    @Test func theUploadIdPatternIsTheServersRule() throws {
        let regex = try Self.pattern(ofSchema: "UploadId")
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["", "é", String(repeating: "u", count: 128), String(repeating: "u", count: 129), "0d9c6a4e-2b7f"]
        samples += ["%", "%25", "%EF%BF%BD=a"]
        for text in samples {
            // The document leaves out '%', which a generator would put in a path unescaped (an
            // escape there); the server also takes one sent as %25.
            let documented = UploadNames.isUploadId(text) && !text.contains("%")
            #expect(Self.matches(regex, text) == documented, "\(text.unicodeScalars.map(\.value))")
        }
        #expect(UploadNames.isUploadId("%25"))
    }

    @Test func theStreamIdPatternIsTheServersRuleWithoutALiteralPercent() throws {
        let regex = try Self.pattern(ofSchema: "StreamId")
        var samples = (0..<160).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["%25", "chatcmpl-42", String(repeating: "s", count: 128), String(repeating: "s", count: 129)]
        for text in samples {
            let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
            let served = (try? PathParameters(["streamId": encoded]).value(ChatStreamID.self)) != nil
            let documented = served && !text.contains("%")
            #expect(Self.matches(regex, text) == documented, "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test func theModelIdPatternIsTheServersRuleWithinItsLength() throws {
        let regex = try Self.pattern(ofSchema: "ModelId")
        var samples = (0..<160).map { String(UnicodeScalar(UInt8($0))) }
        samples += [
            ".", "..", "...", ".a", "a.", "gpt-4o", "llama3.2:8b", "a b", "é", "👩‍💻", "a\u{85}b", "a\u{A0}b",
            String(repeating: "m", count: 64), String(repeating: "é", count: 64),
        ]
        for text in samples {
            let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
            let served = (try? PathParameters(["modelId": encoded]).value(ModelID.self)) != nil
            #expect(Self.matches(regex, text) == served, "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test func theWebSearchQueryPatternIsTheContractsRuleWithinItsLength() throws {
        let regex = try Self.pattern(ofSchema: "WebSearchQuery")
        var samples = (0..<0x3001).compactMap(UnicodeScalar.init).map { String($0) }
        samples += [
            "  a ", "\u{FEFF}", "\t\n", String(repeating: " ", count: 2048), "a" + String(repeating: "😀", count: 2047),
        ]
        for text in samples {
            let taken = (try? WebSearchRequest.decode(.object(["query": .string(text)]), at: .root)) != nil
            #expect(Self.matches(regex, text) == taken, "\(text.unicodeScalars.prefix(4).map(\.value))")
        }
    }

    @Test func theFileNamePatternIsTheServersRule() throws {
        let regex = try Self.pattern(ofSchema: "FileName")
        var samples = [
            "a.txt", "Prüfung 1.txt", "build log.txt", ".", "..", "...", ".hidden", "a/b", "/", " ", "\t", "a b",
            "evil\u{202E}gpj.exe", "a\u{2028}b", "a\u{2029}b", "\u{061C}", "\u{200E}", "\u{200F}", "\u{2066}x",
            "\u{2069}", "\u{202A}", "a\u{200D}b", "👩‍💻.png", String(repeating: "a", count: 1024),
        ]
        samples += (0..<0xA0).map { "a\(String(UnicodeScalar(UInt8($0))))b" }
        for text in samples {
            #expect(Self.matches(regex, text) == UploadNames.isFileName(text), "\(text.unicodeScalars.map(\.value))")
        }
    }
}
