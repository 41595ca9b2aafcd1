import SybilCore

/// Reads a request body as strict JSON; a body that is not JSON is a 400 naming `body`.
enum RequestBody {
    /// The body's JSON value.
    static func json(_ body: [UInt8]) throws(APIError) -> JSONValue {
        do {
            return try JSONReader().parse(body)
        } catch {
            throw .invalid("The body is not valid JSON: \(error).", param: "body", code: "invalid_json")
        }
    }

    /// The body as a JSON object.
    static func object(_ body: [UInt8]) throws(APIError) -> JSONObjectReader {
        let value = try json(body)
        do {
            return try JSONObjectReader(value, at: .root)
        } catch {
            throw .invalid("The body must be a JSON object.", param: "body")
        }
    }
}
