/// Where the user's stored API keys live: the Secret Service when the session offers one, else
/// a 0600 file store (``KeyStores/open(environment:)`` chooses). Names are checked with
/// ``KeyStores/validate(name:)`` before they reach a store; secrets never appear in errors.
public protocol KeyStore: Sendable {
    /// Where keys are kept, for messages: "the Secret Service" or "the file /path (0600)".
    var location: String { get }
    /// The key called `name`, or `nil` when there is none.
    func key(named name: String) throws -> String?
    /// Stores `secret` as the key `name`, replacing an earlier one.
    func setKey(_ secret: String, named name: String) throws
    /// Whether a key was there.
    func removeKey(named name: String) throws -> Bool
    /// Names only, sorted.
    func keyNames() throws -> [String]
}
