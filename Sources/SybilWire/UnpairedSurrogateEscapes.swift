/// Rewrites the `\u` escapes of unpaired UTF-16 surrogates in a chat stream event's JSON as
/// `\ufffd`, so that the tree decoder reads them as U+FFFD where ``JSONReader`` (strict) would
/// refuse the whole event.
///
/// RFC 8259 §8.2 lets a string hold "bit sequences that cannot encode Unicode characters",
/// e.g. `"\uDEAD"`, and leaves what a receiver does with them open. JavaScript gateways that
/// cut a reply by UTF-16 code unit and `JSON.stringify` each piece send exactly that: one
/// delta ends with `\ud83d` and the next starts with `\ude00`. A chat stream reads each
/// unpaired surrogate as U+FFFD (and a decoder kept for the stream joins the split pair:
/// ``ChatCompletionChunkDecoder``); nothing else is loosened.
///
/// The rewrite keeps every byte's offset (both escapes are six bytes), so an error the
/// document still has is the same error, at the same offset and path: the strings it walks
/// are the parser's strings up to the first fault, and nothing after that fault is read.
enum UnpairedSurrogateEscapes {
    /// `bytes` with every unpaired surrogate escape inside a string rewritten as `\ufffd`;
    /// `nil` when there is none. A high surrogate escape is paired when a low surrogate escape
    /// follows it at once, as ``JSONReader`` pairs them.
    static func replaced(in bytes: some Collection<UInt8>) -> [UInt8]? {
        if let result = bytes.withContiguousStorageIfAvailable({ replaced(inBuffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { replaced(inBuffer: $0) }
    }

    private static func replaced(inBuffer bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var output: [UInt8]?
        var inString = false
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                inString.toggle()
                index += 1
                continue
            }
            guard inString, byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard index + 1 < count, bytes[index + 1] == UInt8(ascii: "u"), let unit = hex4(bytes, at: index + 2)
            else {
                // Another escape (or a bad one, which the parser words): its two bytes.
                index += 2
                continue
            }
            if (0xD800...0xDBFF).contains(unit), index + 12 <= count, bytes[index + 6] == UInt8(ascii: "\\"),
                bytes[index + 7] == UInt8(ascii: "u"), let low = hex4(bytes, at: index + 8),
                (0xDC00...0xDFFF).contains(low)
            {
                index += 12
                continue
            }
            if (0xD800...0xDFFF).contains(unit) {
                if output == nil { output = Array(bytes) }
                output![index + 2] = UInt8(ascii: "f")
                output![index + 3] = UInt8(ascii: "f")
                output![index + 4] = UInt8(ascii: "f")
                output![index + 5] = UInt8(ascii: "d")
            }
            index += 6
        }
        return output
    }

    /// The four hexadecimal digits at `position`, or `nil` when there are not four.
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt16? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
