/// How a strict JSON reader names a byte in an error: a printable ASCII byte quoted (`'x'`),
/// any other as `byte 0x1F`. The tree reader (``JSONReader``) and the chat chunk scanner
/// word their errors alike through it.
public enum JSONByteText {
    /// `'x'` for printable ASCII, else `byte 0xNN`.
    public static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte \(hex(byte))"
    }

    /// `0xNN`, two upper-case hex digits.
    public static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
