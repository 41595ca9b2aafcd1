import SybilCore

/// A valid envelope to start from, and edits that break one rule at a time.
enum EnvelopeFixture {
    static let validText = """
        {
          "boundaryToken": "b-17",
          "codexSessionId": "sess-1",
          "loadState": {"state": "ready"},
          "storageFormat": "indexed",
          "loadedEntries": 3,
          "hasOlderEntries": true,
          "oldestCursor": "c-100",
          "timeline": [
            {"type": "user", "id": "row-1", "origin": "canonical", "sourceOrder": [1, 0], "timestamp": 1764400000000, "text": "Hallo"},
            {"type": "thinking", "id": "row-2", "origin": "canonical", "sourceOrder": [1, 1], "timestamp": 1764400000100, "text": "…"},
            {"type": "agent-reply", "id": "row-3", "origin": "canonical", "sourceOrder": [2], "timestamp": 1764400000200, "text": "Hi"}
          ],
          "liveOverlay": {
            "settlementEpoch": 4,
            "revision": 2,
            "blocks": [
              {"type": "user", "id": "live-1", "origin": "live", "sourceOrder": [3], "timestamp": 1764400000300, "text": "Noch was", "runId": "run-9", "operationId": "op-5"},
              {"type": "agent-reply", "id": "live-2", "origin": "live", "sourceOrder": [3, 1], "timestamp": 1764400000400, "text": "Gern", "runId": "run-9"}
            ]
          },
          "runtime": {"model": "m"},
          "activeRun": {"runId": "run-9", "startedAt": 1764400000250}
        }
        """

    static var valid: JSONValue {
        // The fixture is a literal in this file; failing to parse it is a test bug.
        try! JSONReader().parse(validText)
    }

    static var validBlock: JSONValue {
        [
            "type": "agent-reply", "id": "r", "origin": "canonical", "sourceOrder": [1], "timestamp": 5,
            "text": "t",
        ]
    }

    static var validLiveBlock: JSONValue {
        [
            "type": "activity", "id": "a", "origin": "live", "sourceOrder": [1], "timestamp": 5, "text": "t",
            "runId": "run-1",
        ]
    }
}

/// Path-addressed edits of a JSON value, for building invalid documents from a valid one.
enum JSONEdit {
    enum Step {
        case key(String)
        case index(Int)
    }

    /// Sets (or, with `nil`, removes) the value at `steps`; a missing final key is appended.
    static func set(_ value: inout JSONValue, _ steps: [Step], to newValue: JSONValue?) {
        guard let first = steps.first else {
            if let newValue { value = newValue }
            return
        }
        let rest = Array(steps.dropFirst())
        switch (first, value) {
        case (.key(let key), .object(var object)):
            if let position = object.members.firstIndex(where: { $0.key == key }) {
                if rest.isEmpty, newValue == nil {
                    object.members.remove(at: position)
                } else {
                    set(&object.members[position].value, rest, to: newValue)
                }
            } else if rest.isEmpty, let newValue {
                object.members.append(JSONMember(key, newValue))
            } else {
                preconditionFailure("no member \(key) to descend into")
            }
            value = .object(object)
        case (.index(let index), .array(var array)):
            if rest.isEmpty, newValue == nil {
                array.remove(at: index)
            } else {
                set(&array[index], rest, to: newValue)
            }
            value = .array(array)
        default:
            preconditionFailure("path does not match the value")
        }
    }

    static func setting(_ value: JSONValue, _ steps: [Step], to newValue: JSONValue?) -> JSONValue {
        var copy = value
        set(&copy, steps, to: newValue)
        return copy
    }

    /// A number value from its literal text, e.g. `1.0` or `1e2`.
    static func number(_ literal: String) -> JSONValue {
        try! JSONReader().parse(literal)
    }
}
