import SybilCore
import Testing

@Suite("Base64", .timeLimit(.minutes(2)))
struct Base64Tests {
    /// RFC 4648 §10.
    @Test func rfcVectorsBothWays() {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
            "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test func decodeRefusesWhatIsNotCanonicalBase64() {
        #expect(Base64.decode("Zm9") == nil)  // not a multiple of 4
        #expect(Base64.decode("Zm9vY") == nil)
        #expect(Base64.decode("Zm9v====") == nil)  // a whole group of padding
        #expect(Base64.decode("Z===") == nil)  // padding at the second place
        #expect(Base64.decode("Zg=a") == nil)  // a character after padding
        #expect(Base64.decode("Zg==Zg==") == nil)  // padding before the end
        #expect(Base64.decode("Zm9v\n") == nil)
        #expect(Base64.decode("Zm-v") == nil)  // the URL alphabet is not this one
        #expect(Base64.decode("Zh==") == nil)  // leftover bits set
        #expect(Base64.decode("Zm9=") == nil)
        #expect(Base64.decode("Zm8=") == Array("fo".utf8))
    }
}
