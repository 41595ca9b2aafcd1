import Foundation
import SybilCore
import SybilNet

/// `$XDG_CONFIG_HOME/sybil/config.toml`: the profiles and which one is the default. Read
/// strictly (an unknown key is a typo to report, not to ignore) and written back by the
/// `sybil profile` commands, editing only the lines that changed (``ClientConfigurationText``). It never holds a secret: a profile names a stored key or an
/// environment variable.
///
/// ```toml
/// default_profile = "local"
///
/// [profiles.local]
/// base_url = "http://127.0.0.1:11434"
/// model = "llama3.2"
/// timeout = 600                 # seconds to wait for the first token (a local server: 300)
///
/// [profiles.openai]
/// base_url = "https://api.openai.com/v1"
/// model = "gpt-4o-mini"
/// key = "openai"                # sybil keys set openai
/// key_command = "pass show openai"   # prints a fresh key when the server refuses one
/// system = "Answer briefly."
/// headers = { "OpenAI-Organization" = "org-123" }
///
/// [profiles.gemini]
/// base_url = "https://generativelanguage.googleapis.com/v1beta/openai"
/// api_prefix = "/"              # the routes are right under base_url (found by sybil profile add)
/// key_env = "GEMINI_API_KEY"
///
/// [profiles.tiny]
/// base_url = "http://127.0.0.1:8080"
/// max_input_bytes = 32768       # sybil ask refuses a longer question (default 1 MiB)
/// ```
public struct ClientConfiguration: Sendable, Hashable {
    /// The profile used when none is chosen.
    public var defaultProfile: String?
    /// The profiles, in the file's order.
    public private(set) var profiles: [ClientProfile]

    /// A configuration.
    public init(defaultProfile: String? = nil, profiles: [ClientProfile] = []) {
        self.defaultProfile = defaultProfile
        self.profiles = profiles
    }

    /// The profile called `name`.
    public func profile(named name: String) -> ClientProfile? {
        profiles.first { $0.name == name }
    }

    /// Adds `profile`, or replaces the one of the same name in place.
    public mutating func set(_ profile: ClientProfile) {
        if let index = profiles.firstIndex(where: { $0.name == profile.name }) {
            profiles[index] = profile
        } else {
            profiles.append(profile)
        }
    }

    /// Removes the profile called `name` (and the default, when it was that one); returns
    /// whether there was one.
    @discardableResult
    public mutating func remove(named name: String) -> Bool {
        guard let index = profiles.firstIndex(where: { $0.name == name }) else { return false }
        profiles.remove(at: index)
        if defaultProfile == name { defaultProfile = nil }
        return true
    }

    /// Reads a file's text.
    public init(parsing text: String) throws(ClientConfigurationError) {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(parsing: text)
        } catch {
            throw ClientConfigurationError(error.description)
        }
        var configuration = ClientConfiguration()
        for entry in document.root.entries {
            switch (entry.key, entry.value) {
            case ("default_profile", .string(let name)):
                configuration.defaultProfile = name
            case ("profiles", .table(let table)):
                for profile in table.entries {
                    guard case .table(let fields) = profile.value else {
                        throw ClientConfigurationError(
                            "profiles.\(profile.key) must be a table ([profiles.\(profile.key)])")
                    }
                    configuration.profiles.append(
                        try Self.profile(named: profile.key, fields, places: document.places))
                }
            case ("default_profile", _):
                throw ClientConfigurationError("default_profile must be a string")
            case ("profiles", _):
                throw ClientConfigurationError("profiles must be a table of [profiles.NAME] tables")
            default:
                throw ClientConfigurationError("unknown key '\(entry.key)' (known: default_profile, [profiles.NAME])")
            }
        }
        if let name = configuration.defaultProfile, configuration.profile(named: name) == nil {
            throw ClientConfigurationError("default_profile names '\(name)', which is not a profile")
        }
        self = configuration
    }

    private static func profile(
        named name: String, _ fields: TOMLDocument.Table, places: [[String]: TOMLDocument.Place]
    ) throws(ClientConfigurationError) -> ClientProfile {
        let path = "profiles.\(name)"
        guard ClientProfile.isValidName(name) else {
            throw ClientConfigurationError("\(path): a profile name is 1–64 letters, digits, '.', '_' or '-'")
        }
        func string(_ key: String) throws(ClientConfigurationError) -> String? {
            switch fields[key] {
            case nil: return nil
            case .string(let text)?: return text
            case _?: throw ClientConfigurationError("\(path).\(key) must be a string")
            }
        }
        let known = [
            "base_url", "model", "key", "key_env", "key_command", "system", "headers", "max_input_bytes", "timeout",
            "api_prefix",
        ]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            throw ClientConfigurationError(
                "\(path): unknown key '\(unknown)' (known: \(known.joined(separator: ", ")))")
        }
        guard let baseText = try string("base_url") else {
            throw ClientConfigurationError("\(path).base_url is missing")
        }
        var apiPrefix: APIPrefix?
        if let text = try string("api_prefix") {
            guard let prefix = APIPrefix(parsing: text) else {
                throw ClientConfigurationError(
                    "\(path).api_prefix must be \(APIPrefix.rule), got '\(TerminalText.oneLine(text))'")
            }
            apiPrefix = prefix
        }
        let baseURL: URL
        // With its own prefix the base URL is kept as written: `…/v1` with `/` is `…/v1/models`.
        switch ServerAddress.parse(baseText, keepingPath: apiPrefix != nil) {
        case .success(let url): baseURL = url
        case .failure(let error): throw ClientConfigurationError("\(path).base_url \(error)")
        }
        let key = try string("key")
        let keyEnvironment = try string("key_env")
        if key != nil, keyEnvironment != nil {
            throw ClientConfigurationError("\(path): key and key_env exclude each other")
        }
        let keyCommand = try string("key_command")
        if let keyCommand,
            keyCommand.trimmingCharacters(in: .whitespaces).isEmpty || !HeaderRules.isFieldValue(keyCommand)
        {
            throw ClientConfigurationError("\(path).key_command must be one non-blank line")
        }
        var headers: [ClientProfile.Header] = []
        switch fields["headers"] {
        case nil: break
        case .table(let table)?:
            for entry in table.entries {
                guard case .string(let value) = entry.value else {
                    throw ClientConfigurationError("\(path).headers.\(entry.key) must be a string")
                }
                guard HeaderRules.isToken(entry.key), HeaderRules.isFieldValue(value) else {
                    throw ClientConfigurationError(
                        "\(path).headers.\(entry.key): a header needs a token name and a value without CR, LF or NUL")
                }
                headers.append(ClientProfile.Header(name: entry.key, value: value))
            }
        case _?: throw ClientConfigurationError("\(path).headers must be a table of strings")
        }
        return ClientProfile(
            name: name, baseURL: baseURL, model: try string("model"), key: key, keyEnvironment: keyEnvironment,
            system: try string("system"), headers: headers, keyCommand: keyCommand,
            maxInputBytes: try maxInputBytes(
                fields["max_input_bytes"], path: path, place: places[["profiles", name, "max_input_bytes"]]),
            timeoutSeconds: try timeoutSeconds(
                fields["timeout"], path: path, place: places[["profiles", name, "timeout"]]),
            apiPrefix: apiPrefix)
    }

    /// `timeout`: a whole number of seconds in ``ReplyWait/secondsRange``; an error names the
    /// line and column where it was written.
    private static func timeoutSeconds(_ value: TOMLDocument.Value?, path: String, place: TOMLDocument.Place?)
        throws(ClientConfigurationError) -> Int?
    {
        guard let value else { return nil }
        let range = ReplyWait.secondsRange
        if case .integer(let number) = value, range.contains(Int(clamping: number)) { return Int(number) }
        let given = if case .integer(let number) = value { ", got \(number)" } else { "" }
        let rule =
            "\(path).timeout must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)\(given)"
        throw ClientConfigurationError(place.map { $0.error(rule).description } ?? rule)
    }

    /// `max_input_bytes`: a whole number in ``ClientProfile/inputBytesRange``; an error names
    /// the line and column where it was written.
    private static func maxInputBytes(_ value: TOMLDocument.Value?, path: String, place: TOMLDocument.Place?)
        throws(ClientConfigurationError) -> Int?
    {
        guard let value else { return nil }
        let range = ClientProfile.inputBytesRange
        if case .integer(let number) = value, range.contains(Int(clamping: number)) { return Int(number) }
        let given = if case .integer(let number) = value { ", got \(number)" } else { "" }
        let rule =
            "\(path).max_input_bytes must be a whole number of bytes from \(range.lowerBound) to \(range.upperBound)"
            + " (16 MiB)\(given)"
        throw ClientConfigurationError(place.map { $0.error(rule).description } ?? rule)
    }

    /// A profile's fields as the file holds them.
    static func fields(of profile: ClientProfile) -> TOMLDocument.Table {
        var fields = TOMLDocument.Table()
        fields["base_url"] = .string(profile.baseURL.absoluteString)
        if let model = profile.model { fields["model"] = .string(model) }
        if let key = profile.key { fields["key"] = .string(key) }
        if let keyEnvironment = profile.keyEnvironment { fields["key_env"] = .string(keyEnvironment) }
        if let keyCommand = profile.keyCommand { fields["key_command"] = .string(keyCommand) }
        if let system = profile.system { fields["system"] = .string(system) }
        if let bytes = profile.maxInputBytes { fields["max_input_bytes"] = .integer(Int64(bytes)) }
        if let seconds = profile.timeoutSeconds { fields["timeout"] = .integer(Int64(seconds)) }
        if let prefix = profile.apiPrefix { fields["api_prefix"] = .string(prefix.description) }
        if !profile.headers.isEmpty {
            var headers = TOMLDocument.Table()
            for header in profile.headers { headers[header.name] = .string(header.value) }
            fields["headers"] = .table(headers)
        }
        return fields
    }

    /// The file's text.
    public func formatted() -> String {
        var root = TOMLDocument.Table()
        if let defaultProfile { root["default_profile"] = .string(defaultProfile) }
        var tables = TOMLDocument.Table()
        for profile in profiles { tables[profile.name] = .table(Self.fields(of: profile)) }
        if !profiles.isEmpty { root["profiles"] = .table(tables) }
        return "# Sybil's profiles: see docs/config.md. Keys are kept apart (sybil keys), never here.\n"
            + TOMLDocument(root: root).formatted()
    }
}

/// What is wrong with `config.toml`, naming the line and column or the key.
public struct ClientConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problem.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// The two header rules a profile's fields must pass (RFC 9110 §5.1, §5.5).
enum HeaderRules {
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
    }

    static func isFieldValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }
}
