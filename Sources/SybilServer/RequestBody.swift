import SybilCore

/// Reads a request body as strict JSON for every route that takes one: a body that is not
/// JSON is a 400 naming `body`; an object anywhere in it that names a member twice is a 400
/// saying `duplicate key 'x'` and naming the member's path, so no route silently keeps one
/// of two values.
enum RequestBody {
    /// The body's JSON value.
    static func json(_ body: [UInt8]) throws(APIError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONReader().parse(body)
        } catch {
            throw .invalid("The body is not valid JSON: \(error).", param: "body", code: "invalid_json")
        }
        if let (path, key) = firstDuplicateKey(in: value, at: .root) {
            throw duplicateKey(key, in: path)
        }
        return value
    }

    /// The body as a JSON object.
    static func object(_ body: [UInt8]) throws(APIError) -> JSONObjectReader {
        let value = try json(body)
        do {
            return try JSONObjectReader(value, at: .root)
        } catch {
            throw .invalid("The body must be a JSON object, got \(value.kindDescription).", param: "body")
        }
    }

    /// The error for `key` repeated in the object at `path`: `param` is the member's path.
    static func duplicateKey(_ key: String, in path: JSONPath) -> APIError {
        let member = path.appending(key: key)
        let place = path.isRoot ? "The body" : "\(path)"
        return .invalid(
            "\(place) has a \(JSONObjectReader.duplicateKey(key)); each member may appear once.",
            param: member.description)
    }

    /// The first object member, depth first, whose name an earlier member of the same object
    /// has: the object's path and the name. Linear in the document.
    static func firstDuplicateKey(in value: JSONValue, at path: JSONPath) -> (JSONPath, String)? {
        switch value {
        case .object(let object):
            let members = object.members
            if members.count > 1 {
                var seen = Set<JSONMemberName>(minimumCapacity: members.count)
                for member in members where !seen.insert(JSONMemberName(member.key)).inserted {
                    return (path, member.key)
                }
            }
            for member in members {
                if let found = firstDuplicateKey(in: member.value, at: path.appending(key: member.key)) {
                    return found
                }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstDuplicateKey(in: element, at: path.appending(index: index)) {
                    return found
                }
            }
            return nil
        default:
            return nil
        }
    }
}
