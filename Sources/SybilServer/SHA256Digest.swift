#if canImport(COpenSSL)
    import COpenSSL
#elseif canImport(CryptoKit)
    import CryptoKit
#endif

/// SHA-256 in lowercase hex (OpenSSL on Linux, CryptoKit on Apple).
enum SHA256Digest {
    static func hex(_ bytes: [UInt8]) -> String {
        #if canImport(COpenSSL)
            var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
            _ = SHA256(bytes, bytes.count, &digest)
        #else
            let digest = Array(SHA256.hash(data: bytes))
        #endif
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
