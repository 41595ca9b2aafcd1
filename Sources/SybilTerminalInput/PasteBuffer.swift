/// The bytes of one bracketed paste while it arrives, bounded to
/// ``TerminalInputDecoder/maximumPasteBytes``.
///
/// Bytes past the bound are counted and discarded (the decoder still reads on to the end
/// marker, so nothing of the paste leaks out as keys). ``text()`` decodes what was kept:
/// invalid UTF-8 becomes U+FFFD (a character cut in half by the bound is left out), CR LF and
/// lone CR become LF, and every other control character except LF and Tab is removed, so a
/// paste can never smuggle escape sequences or carriage returns into the composer.
struct PasteBuffer: Hashable {
    /// The bytes kept so far.
    private(set) var bytes: [UInt8] = []
    /// How many bytes past the bound were discarded.
    private(set) var discarded = 0
    /// The most bytes kept.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds the next piece of the paste, keeping at most `limit` bytes in all.
    mutating func append(_ piece: ArraySlice<UInt8>) {
        let room = max(0, limit - bytes.count)
        if piece.count <= room {
            bytes.append(contentsOf: piece)
        } else {
            bytes.append(contentsOf: piece.prefix(room))
            discarded += piece.count - room
        }
    }

    /// The pasted text, normalised (see the type's documentation).
    func text() -> String {
        var kept = bytes[...]
        if discarded > 0 { kept = Self.droppingCutCharacter(kept) }
        let decoded = String(decoding: kept, as: UTF8.self)
        var scalars = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in decoded.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            switch scalar.value {
            case 0x0D: scalars.append("\n")
            case 0x0A: if !previousWasCarriageReturn { scalars.append("\n") }
            case 0x09: scalars.append(scalar)
            case 0x00..<0x20, 0x7F..<0xA0: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// `bytes` without a UTF-8 character the bound cut short at its end.
    private static func droppingCutCharacter(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.endIndex
        var seen = 0
        while start > bytes.startIndex, seen < 4 {
            start -= 1
            seen += 1
            let byte = bytes[start]
            if byte & 0xC0 != 0x80 {
                let needed: Int =
                    switch byte {
                    case 0xC0...0xDF: 2
                    case 0xE0...0xEF: 3
                    case 0xF0...0xF7: 4
                    default: 1
                    }
                return needed > seen ? bytes[..<start] : bytes
            }
        }
        return bytes
    }
}
