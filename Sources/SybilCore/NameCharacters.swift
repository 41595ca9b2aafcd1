/// The one rule for the characters of a name a peer chooses and others are shown (an upload's
/// file name, a profile's display name): none that changes how the text around it is shown.
///
/// Refused are the control characters (C0 with NUL, DEL, C1), the line and paragraph
/// separators, and the bidirectional marks, embeddings, overrides and isolates (U+061C,
/// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) that can make `gpj.exe` read as `exe.jpg`.
public enum NameCharacters {
    /// How a refusal describes the rule, after the field's name: "must not contain …".
    public static let rule =
        "must not contain control characters, line or paragraph separators or bidirectional controls"

    /// Whether `scalar` is one of the refused characters.
    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The first refused character of `text`, or `nil` when every character may be shown.
    public static func firstRefused(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isRefused)
    }

    /// `U+202E`: how a refusal names the character, which it must not print itself.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
