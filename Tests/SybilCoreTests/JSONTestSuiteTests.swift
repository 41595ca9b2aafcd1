import Foundation
import SybilCore
import Testing

/// Runs the reader over `../shared/testdata/JSONTestSuite/test_parsing` (Nicolas Seriot's
/// JSONTestSuite), which sits beside the repository in development and CI but not in a
/// user's clone; the suite is skipped, saying so, when the folder is absent. The hand-written
/// cases in `JSONReaderTests` cover the same rules without it.
@Suite(
    "JSONTestSuite conformance",
    .enabled(
        if: JSONTestSuiteFiles.directory != nil,
        "../shared/testdata/JSONTestSuite/test_parsing is not beside this checkout; JSONReaderTests covers the same rules"
    ))
struct JSONTestSuiteTests {
    /// What the reader does with each implementation-defined (`i_`) file, and why.
    static let implementationDefined: [String: Bool] = [
        // Numbers are kept as exact literals; range checks happen where a field is read.
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": true,
        "i_number_neg_int_huge_exp.json": true,
        "i_number_pos_double_huge_exp.json": true,
        "i_number_real_neg_overflow.json": true,
        "i_number_real_pos_overflow.json": true,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        // Strings must be valid Unicode: lone or inverted surrogate escapes are rejected.
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_lone_second_surrogate.json": false,
        // Text must be UTF-8 (RFC 8259 §8.1): invalid, overlong, truncated or UTF-16 input is rejected.
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        // 500 levels are within the default limit of 512.
        "i_structure_500_nested_arrays.json": true,
        // A byte-order mark is not allowed (RFC 8259 §8.1: implementations must not add one).
        "i_structure_UTF-8_BOM_empty_object.json": false,
    ]

    private func accepts(_ name: String) throws -> Bool {
        let directory = try #require(JSONTestSuiteFiles.directory)
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        do {
            _ = try JSONReader().parse([UInt8](data))
            return true
        } catch {
            return false
        }
    }

    @Test func everyYFileIsAccepted() throws {
        let names = JSONTestSuiteFiles.names(prefix: "y_")
        #expect(names.count > 90)
        for name in names {
            #expect(try accepts(name), "\(name) must be accepted")
        }
    }

    @Test func everyNFileIsRejected() throws {
        let names = JSONTestSuiteFiles.names(prefix: "n_")
        #expect(names.count > 180)
        for name in names {
            #expect(try !accepts(name), "\(name) must be rejected")
        }
    }

    @Test func everyIFileBehavesAsDocumented() throws {
        let names = JSONTestSuiteFiles.names(prefix: "i_")
        #expect(Set(names) == Set(Self.implementationDefined.keys), "every i_ file has a documented outcome")
        for name in names {
            #expect(try accepts(name) == Self.implementationDefined[name], "\(name)")
        }
    }
}

/// Finds the shared JSONTestSuite folder relative to this source file.
enum JSONTestSuiteFiles {
    static let directory: URL? = {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = repository.deletingLastPathComponent()
            .appendingPathComponent("shared/testdata/JSONTestSuite/test_parsing")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return nil }
        return folder
    }()

    static func names(prefix: String) -> [String] {
        guard let directory else { return [] }
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return all.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }
}
