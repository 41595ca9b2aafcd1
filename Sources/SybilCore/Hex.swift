/// Lowercase hexadecimal text: fixed-width words and byte strings.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `value` as 16 hexadecimal digits, zero-padded.
    public static func padded(_ value: UInt64) -> String {
        var text = [UInt8](repeating: 0, count: 16)
        var rest = value
        for index in stride(from: 15, through: 0, by: -1) {
            text[index] = digits[Int(rest & 0xF)]
            rest >>= 4
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Two digits per byte, in order.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `byte` is one of `0-9a-f`.
    public static func isLowercaseDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
