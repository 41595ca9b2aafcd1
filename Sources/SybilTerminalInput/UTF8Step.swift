/// One step of decoding UTF-8 from a byte buffer that may end in the middle of a character.
///
/// Follows the Unicode "maximal subpart" practice: an ill-formed sequence is replaced by one
/// U+FFFD per maximal prefix that could have begun a well-formed character, so the bytes after
/// it are decoded as if it were not there. Overlong forms, surrogates and values above
/// U+10FFFF are ill-formed.
enum UTF8Step: Hashable {
    /// A scalar decoded from `length` bytes.
    case scalar(Unicode.Scalar, length: Int)
    /// `length` bytes that cannot begin a character; they stand for one U+FFFD.
    case invalid(length: Int)
    /// The buffer ends inside a character that may still be completed.
    case incomplete

    /// Decodes the character that starts at `index` of `bytes`.
    static func decode(_ bytes: [UInt8], at index: Int) -> UTF8Step {
        let lead = bytes[index]
        if lead < 0x80 { return .scalar(Unicode.Scalar(lead), length: 1) }
        let continuation: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        var value: UInt32
        switch lead {
        case 0xC2...0xDF:
            continuation = 1
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            continuation = 2
            value = UInt32(lead & 0x0F)
            if lead == 0xE0 { lowest = 0xA0 }
            if lead == 0xED { highest = 0x9F }
        case 0xF0...0xF4:
            continuation = 3
            value = UInt32(lead & 0x07)
            if lead == 0xF0 { lowest = 0x90 }
            if lead == 0xF4 { highest = 0x8F }
        default:
            return .invalid(length: 1)
        }
        for offset in 1...continuation {
            guard index + offset < bytes.count else { return .incomplete }
            let byte = bytes[index + offset]
            let low = offset == 1 ? lowest : 0x80
            let high = offset == 1 ? highest : 0xBF
            guard byte >= low, byte <= high else { return .invalid(length: offset) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return .invalid(length: continuation + 1) }
        return .scalar(scalar, length: continuation + 1)
    }
}
