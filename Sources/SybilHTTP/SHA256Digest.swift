import SybilCore

#if canImport(COpenSSL)
    import COpenSSL
#elseif canImport(CryptoKit)
    import CryptoKit
#endif

/// SHA-256 in lowercase hex (OpenSSL on Linux, CryptoKit on Apple): upload digests on the
/// server, download verification on the client.
public enum SHA256Digest {
    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        #if canImport(COpenSSL)
            var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
            _ = SHA256(bytes, bytes.count, &digest)
        #else
            let digest = Array(SHA256.hash(data: bytes))
        #endif
        return Hex.string(digest)
    }
}
