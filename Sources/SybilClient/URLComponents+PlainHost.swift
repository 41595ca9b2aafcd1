import Foundation

extension URLComponents {
    /// `percentEncodedHost`, without its IDNA work when the host cannot need any: a host of at
    /// most 253 ASCII letters, digits, `.`, `-`, `:`, `[` and `]` with no `xn--` (A-label) in it
    /// is returned as stored. `percentEncodedHost` decodes A-labels through ICU, which loads ICU's
    /// IDNA data (about 1 MiB resident) on the first call; the app's start-up checks its own
    /// loopback base this way, so for such hosts that cost is never paid. Any other host goes
    /// through `percentEncodedHost` itself, so the answer is always the same as its answer.
    var plainPercentEncodedHost: String? {
        guard let stored = encodedHost else { return percentEncodedHost }
        let plain = stored.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                UInt8(ascii: "["), UInt8(ascii: "]"):
                true
            default: false
            }
        }
        // Past a DNS name's 253 bytes IDNA may refuse the host: its answer is taken then too.
        guard plain, stored.utf8.count <= 253, !stored.lowercased().contains("xn--") else {
            return percentEncodedHost
        }
        return stored
    }
}
