import SybilCore
import Testing

/// FNV-1a 64-bit against the reference vectors published with the algorithm
/// (Landon Curt Noll's `test_fnv.c`, FNV1a_64 column).
@Suite("FNV-1a 64", .timeLimit(.minutes(2)))
struct FNV1a64Tests {
    static let vectors: [(input: String, hash: UInt64)] = [
        ("", 0xcbf2_9ce4_8422_2325),
        ("a", 0xaf63_dc4c_8601_ec8c),
        ("b", 0xaf63_df4c_8601_f1a5),
        ("c", 0xaf63_de4c_8601_eff2),
        ("d", 0xaf63_d94c_8601_e773),
        ("e", 0xaf63_d84c_8601_e5c0),
        ("f", 0xaf63_db4c_8601_ead9),
        ("fo", 0x0898_5907_b541_d342),
        ("foo", 0xdcb2_7518_fed9_d577),
        ("foob", 0xdd12_0e79_0c25_12af),
        ("fooba", 0xcac1_65af_a2fe_f40a),
        ("foobar", 0x8594_4171_f739_67e8),
        ("\0", 0xaf63_bd4c_8601_b7df),
        ("a\0", 0x089b_e207_b544_f1e4),
        ("b\0", 0x08a6_1407_b54d_9b5f),
        ("c\0", 0x08a2_ae07_b54a_b836),
        ("d\0", 0x0891_b007_b53c_4869),
        ("e\0", 0x088e_4a07_b539_6540),
        ("f\0", 0x0898_7c07_b542_0ebb),
        ("fo\0", 0xdcb2_8a18_fed9_f926),
        ("foo\0", 0xdd12_7079_0c25_b935),
        ("foob\0", 0xcac1_46af_a2fe_bf5d),
        ("fooba\0", 0x8593_d371_f738_acfe),
        ("foobar\0", 0x3453_1ca7_168b_8f38),
        ("ch", 0x08a2_5607_b54a_22ae),
        ("chongo", 0xe150_688c_8217_b8fd),
        ("chongo was here!\n", 0x4681_0940_eff5_f915),
        ("127.0.0.1", 0xaaba_fe71_04d9_14be),
    ]

    @Test("reference vectors", arguments: vectors)
    func referenceVector(input: String, hash: UInt64) {
        #expect(FNV1a64.hash(utf8: input) == hash, "input \(input.debugDescription)")
        #expect(FNV1a64.hash(Array(input.utf8)) == hash)
        // Bytes with no contiguous storage take the byte-by-byte path.
        #expect(FNV1a64.hash(AnySequence(input.utf8)) == hash)
        #expect(FNV1a64.hash(([0] + Array(input.utf8))[1...]) == hash)
    }

    @Test func vectorCountCoversTheRequiredMinimum() {
        #expect(Self.vectors.count >= 20)
    }

    @Test func incrementalUpdatesMatchOneShot() {
        var hasher = FNV1a64()
        hasher.update(utf8: "foo")
        hasher.update(Array("bar".utf8))
        #expect(hasher.value == 0x8594_4171_f739_67e8)
    }

    @Test func hexDigestIsSixteenLowercaseDigits() {
        var hasher = FNV1a64()
        hasher.update(utf8: "fo")
        #expect(hasher.hexDigest == "08985907b541d342")
        #expect(FNV1a64().hexDigest == "cbf29ce484222325")
    }
}
