import SybilCore

/// Ways to cut one input into chunks, as a network would: the parsers are incremental, so each
/// must give the same answer however its bytes arrive. The cuts are derived from the input
/// itself (no clock, no global random state), so a failing input reproduces exactly.
public enum FuzzSplits {
    /// The input whole, byte by byte, and in pieces of 1 to 16 bytes chosen by a generator
    /// seeded with the input's FNV-1a hash.
    public static func chunkings(of bytes: [UInt8]) -> [(name: String, chunks: [ArraySlice<UInt8>])] {
        [
            ("whole", [bytes[...]]),
            ("byte by byte", bytes.indices.map { bytes[$0..<($0 + 1)] }),
            ("in seeded pieces", seededPieces(of: bytes)),
        ]
    }

    /// Pieces of 1 to 16 bytes, their sizes drawn from a SplitMix64 generator seeded with the
    /// input's hash.
    public static func seededPieces(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var state = FNV1a64.hash(bytes)
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            let end = min(bytes.count, start + 1 + Int(mixed % 16))
            pieces.append(bytes[start..<end])
            start = end
        }
        return pieces
    }

    /// Splits `bytes` at its first LF: the line (without the LF) and the rest. Targets that need
    /// a parameter besides the body (a Content-Type, a flag) read it from the first line.
    public static func firstLine(of bytes: [UInt8]) -> (line: [UInt8], rest: [UInt8]) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return (bytes, []) }
        return (Array(bytes[..<newline]), Array(bytes[(newline + 1)...]))
    }
}
