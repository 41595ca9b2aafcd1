/// A Secret Service call failed: what was being done and libsecret's message. Never contains a
/// secret.
public struct SecretServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, e.g. `store the key 'openai'`.
    public var operation: String
    /// libsecret's (or D-Bus's) message.
    public var message: String

    /// Creates an error.
    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    /// `cannot <operation> in the Secret Service: <message>`.
    public var description: String { "cannot \(operation): \(message)" }
}
