import SybilCore

// `fnv`: SybilCore's FNV-1a 64 over an attachment's bytes, called from another module (this
// one) as the attachment stores and upload keys call it, against the same loop written here
// over the same array. A `hash` that is not specialized for its caller walks the bytes through
// the sequence's witness table, one call per byte.

/// Times hashing `bytes` bytes (an array and a slice of it) both ways.
func benchmarkFNV(bytes count: Int) {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var sybil: UInt64 = 0
    var loop: UInt64 = 0
    let sybilSeconds = best {
        sybil = FNV1a64.hash(bytes) ^ FNV1a64.hash(bytes[1...])
    }
    let loopSeconds = best {
        loop = plainFNV(bytes[...]) ^ plainFNV(bytes[1...])
    }
    guard sybil == loop else {
        print("fnv: the two hashes differ (\(sybil) against \(loop))")
        return
    }
    let mebibytes = Double(2 * count - 1) / Double(1 << 20)
    print(
        "fnv: \(format(mebibytes)) MiB; FNV1a64.hash \(format(mebibytes / sybilSeconds, 0)) MiB/s, "
            + "a plain loop \(format(mebibytes / loopSeconds, 0)) MiB/s; ratio \(format(loopSeconds / sybilSeconds)) x")
}

/// FNV-1a 64 written out over `bytes`.
private func plainFNV(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash = FNV1a64.offsetBasis
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* FNV1a64.prime }
    return hash
}
