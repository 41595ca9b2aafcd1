import SybilCore

/// The checks a record's members pass, shared by decoding and by ``Record/init(id:createdAt:payload:)``.
extension Record {
    /// Whether `text` is a lowercase hyphenated UUID (`8-4-4-4-12` hex digits).
    public static func isRecordID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    static func checkID(_ id: String, at path: JSONPath) throws(JSONError) {
        guard isRecordID(id) else {
            throw .contract(
                path,
                "must be a lowercase UUID such as 1b4e28ba-2fa1-4d2e-883f-0016d3cca427, got \(JSONWriter.quoted(String(id.prefix(60))))"
            )
        }
    }

    static func check(_ value: Int64, in range: ClosedRange<Int64>, at path: JSONPath) throws(JSONError) {
        guard range.contains(value) else {
            throw .contract(path, "integer \(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
    }

    static func checkNote(_ note: String, at path: JSONPath) throws(JSONError) {
        guard note.utf8.count <= maxNoteBytes else {
            throw .contract(path, "must be at most \(maxNoteBytes) bytes of UTF-8, got \(note.utf8.count)")
        }
    }

    static func checkDisplayName(_ name: String, at path: JSONPath) throws(JSONError) {
        guard name.utf8.count <= maxDisplayNameBytes else {
            throw .contract(path, "must be at most \(maxDisplayNameBytes) bytes of UTF-8, got \(name.utf8.count)")
        }
        let count = name.count
        guard displayNameCharacters.contains(count) else {
            throw .contract(
                path,
                "must have \(displayNameCharacters.lowerBound)…\(displayNameCharacters.upperBound) characters, got \(count)"
            )
        }
        guard name.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw .contract(path, "must not be blank")
        }
        // The file-name rule: nothing that changes how the text around it is shown.
        if let refused = NameCharacters.firstRefused(in: name) {
            throw .contract(path, "\(NameCharacters.rule), got \(NameCharacters.codePoint(refused))")
        }
    }
}
