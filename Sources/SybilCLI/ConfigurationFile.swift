import Foundation
import SybilClient
import SybilStore

/// `$XDG_CONFIG_HOME/sybil/config.toml` on disk: read when it exists, written atomically by
/// the `sybil profile` commands, which change only the lines their change needs (comments and
/// hand-written lines stay).
struct ConfigurationFile {
    /// The file's path.
    let path: String

    /// The file the environment's XDG directories name.
    init(environment: [String: String]) {
        path = XDGDirectories(environment: environment).configHome + "/sybil/config.toml"
    }

    /// The configuration, or `nil` when there is no file.
    func load() throws(ConfigurationFileError) -> ClientConfiguration? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationFileError("cannot read \(path); check its permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationFileError("\(path) is not UTF-8 text")
        }
        do {
            return try ClientConfiguration(parsing: text)
        } catch {
            throw ConfigurationFileError("\(path): \(error.description)")
        }
    }

    /// Writes `configuration` (the directory made when missing): into the file's text as it is,
    /// editing only the lines that changed, or whole when there is no file.
    func save(_ configuration: ClientConfiguration) throws(ConfigurationFileError) {
        let directory = (path as NSString).deletingLastPathComponent
        let existing = FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
        let text = existing.map { ClientConfigurationText.edit($0, to: configuration) } ?? configuration.formatted()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try AtomicFile.write(Array(text.utf8), to: path)
        } catch {
            throw ConfigurationFileError("cannot write \(path): \(error)")
        }
    }
}

/// A configuration file that cannot be read or written, naming it.
struct ConfigurationFileError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
