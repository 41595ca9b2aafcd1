import SybilWire

/// An original written to a temporary file for Save/Share: the exact bytes under the
/// attachment's own name, in a folder of its own. ``AgentDownloads/release(_:)`` removes it when
/// its card goes away; a configuration change removes every export.
public struct AgentDownloadExport: Sendable, Hashable, Identifiable {
    /// The export's identity.
    public var id: String
    /// The file's path.
    public var path: String
    /// The attachment it holds.
    public var attachment: AgentAttachment

    /// Creates an export handle.
    public init(id: String, path: String, attachment: AgentAttachment) {
        self.id = id
        self.path = path
        self.attachment = attachment
    }
}
