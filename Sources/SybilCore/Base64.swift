/// Base64 with the standard alphabet and padding (RFC 4648 §4), as the WebSocket handshake
/// uses it for `Sec-WebSocket-Key` and `Sec-WebSocket-Accept` and chat attachments for their
/// `data:` URLs.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64, padded with `=` to a multiple of four characters.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let count = min(3, bytes.count - start)
            var group: UInt32 = 0
            for index in 0..<3 { group = group << 8 | UInt32(index < count ? bytes[start + index] : 0) }
            for index in 0..<4 {
                output.append(
                    index <= count ? alphabet[Int(group >> (18 - 6 * UInt32(index)) & 0x3F)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of canonical base64 `text`, or `nil` when it is not: a length that is not a
    /// multiple of four, a character outside the alphabet, padding anywhere but at the end, or
    /// non-zero bits left over before the padding.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 4 * 3)
        for start in stride(from: 0, to: characters.count, by: 4) {
            let isLast = start + 4 == characters.count
            var group: UInt32 = 0
            var padding = 0
            for index in 0..<4 {
                let character = characters[start + index]
                if character == UInt8(ascii: "=") {
                    guard isLast, index >= 2 else { return nil }
                    padding += 1
                    group <<= 6
                    continue
                }
                guard padding == 0, let value = alphabet.firstIndex(of: character) else { return nil }
                group = group << 6 | UInt32(value)
            }
            let bytes = [
                UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8),
                UInt8(truncatingIfNeeded: group),
            ]
            // Canonical: the bits the padding stands for are zero.
            guard bytes[(3 - padding)...].allSatisfy({ $0 == 0 }) else { return nil }
            output.append(contentsOf: bytes.prefix(3 - padding))
        }
        return output
    }
}
