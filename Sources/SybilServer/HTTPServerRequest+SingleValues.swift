import SybilHTTP

/// The API's rule for single-valued query parameters and header fields: a repeat is a 400
/// naming it (the shared error body), never read as its first value.
extension HTTPServerRequest {
    /// The value of the single-valued query parameter `name`, or `nil` when it is absent; a
    /// parameter given twice is refused (400 naming it), never read as its first value.
    public func queryValue(_ name: String) throws(APIError) -> String? {
        var found: String?
        for pair in query where pair.name == name {
            guard found == nil else {
                throw APIError.invalid("Give the query parameter '\(name)' once, not several times.", param: name)
            }
            found = pair.value
        }
        return found
    }

    /// The value of the single-valued header field `name` (e.g. `Last-Event-ID`), or `nil`
    /// when it is absent; a field given twice is refused (400 naming it), never read as its
    /// first value.
    public func singleHeader(_ name: String) throws(APIError) -> String? {
        let values = head.headers.fields.filter { $0.name.lowercased() == name.lowercased() }
        guard values.count <= 1 else {
            throw APIError.invalid("Send one \(name) header, not several.", param: name)
        }
        return values.first?.value
    }
}
