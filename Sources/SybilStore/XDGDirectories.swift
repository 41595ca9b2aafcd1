/// The XDG base directories (data, config) from an injected environment.
public struct XDGDirectories: Sendable, Hashable {
    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
    public var dataHome: String
    /// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
    public var configHome: String

    /// Reads the variables from `environment` (relative values are ignored, as the spec says).
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        func absolute(_ name: String) -> String? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return value
        }
        dataHome = absolute("XDG_DATA_HOME") ?? home + "/.local/share"
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
    }

    /// Sybil's data directory.
    public var sybilData: String { dataHome + "/sybil" }
}
