import SybilCore

#if canImport(COpenSSL)
    import COpenSSL
#elseif canImport(CryptoKit)
    import CryptoKit
#endif

/// SHA-256 over bytes that arrive in pieces (a file read chunk by chunk), so memory does not
/// grow with the input; ``SHA256Digest`` hashes one whole buffer.
public final class SHA256Stream {
    #if canImport(COpenSSL)
        private let context: OpaquePointer
    #else
        private var hasher = SHA256()
    #endif

    /// A digest of nothing yet.
    public init() {
        #if canImport(COpenSSL)
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                fatalError("OpenSSL could not start a SHA-256 digest")
            }
            self.context = context
        #endif
    }

    deinit {
        #if canImport(COpenSSL)
            EVP_MD_CTX_free(context)
        #endif
    }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        #if canImport(COpenSSL)
            _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
        #else
            hasher.update(bufferPointer: bytes)
        #endif
    }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything added, as 64 lowercase hex digits (call once).
    public func finalHex() -> String {
        #if canImport(COpenSSL)
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            _ = EVP_DigestFinal_ex(context, &digest, &length)
            return Hex.string(Array(digest.prefix(Int(length))))
        #else
            return Hex.string(Array(hasher.finalize()))
        #endif
    }
}
