import SybilHTTP

/// The bearer-token rule, decided from a request's head alone: exactly one `Authorization`
/// field, the scheme `Bearer` in any case (RFC 9110 §11.1) and credentials equal to the
/// token, compared in time that depends only on the lengths, never on where they first
/// differ. Two fields are a 400, never a guess; anything else is a 401 naming the scheme.
struct BearerAuthorization: Sendable {
    private let expected: [UInt8]

    /// The rule for `token`.
    init(token: String) {
        expected = Array(token.utf8)
    }

    /// The answer refusing `headers`, or `nil` when they carry the token.
    func refusal(for headers: HTTPHeaders) -> HTTPServerResponse? {
        let values = headers.values(named: "Authorization")
        if values.count > 1 {
            return APIError(
                status: 400, message: "Send one Authorization header, not several.", code: "duplicate_authorization",
                param: "Authorization"
            ).response
        }
        if let value = values.first, matches(Array(value.utf8)) { return nil }
        var response = APIError(
            status: 401, message: "A valid bearer token is required (Authorization: Bearer <token>).",
            code: "unauthorized"
        ).response
        // RFC 9110 §11.6.1: a 401 names the scheme it takes.
        response.headers.set("WWW-Authenticate", "Bearer")
        return response
    }

    private func matches(_ field: [UInt8]) -> Bool {
        let scheme = Array("bearer".utf8)
        guard field.count > scheme.count, field[scheme.count] == 0x20,
            field[..<scheme.count].map({ $0 | 0x20 }) == scheme
        else { return false }
        let given = field[(scheme.count + 1)...].drop { $0 == 0x20 }
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count {
            let offset = given.startIndex + index
            difference |= expected[index] ^ (offset < given.endIndex ? given[offset] : 0)
        }
        return difference == 0
    }
}
