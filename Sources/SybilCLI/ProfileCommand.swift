import Foundation
import SybilClient
import SybilCore

/// `sybil profile add|list|use|remove`: the profiles of `config.toml`, edited by command.
enum ProfileCommand {
    static let name = "sybil profile"

    /// The options of `sybil profile add`.
    enum Option {
        static let baseURL = OptionSpec.text(
            "--base-url", valueName: "URL",
            help: "The server's base URL, with or without /v1 (required for a\nnew profile).")
        static let model = OptionSpec.text("--model", valueName: "NAME", help: "The model to ask.")
        static let key = OptionSpec.text(
            "--key", valueName: "KEYNAME", help: "The stored key to send (`sybil keys set KEYNAME`).")
        static let keyEnvironment = OptionSpec.text(
            "--key-env", valueName: "VAR", help: "The environment variable holding the key.")
        static let keyCommand = OptionSpec.text(
            "--key-command", valueName: "CMD",
            help: "A shell command printing a fresh key, run when the server\nrefuses one (as `gh auth token`).")
        static let system = OptionSpec.text("--system", valueName: "TEXT", help: "A system prompt for new chats.")
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first, first != "-h", first != "--help" else {
            io.writeOutput(CommandSpec.profile.help)
            return .success
        }
        let rest = Array(arguments.dropFirst())
        let file = ConfigurationFile(environment: io.environment)
        switch first {
        case "add":
            guard let parsed = try CommandSpec.profileAdd.parse(rest) else { return help(.profileAdd, io) }
            return try add(parsed, file: file, io: io)
        case "list":
            guard try CommandSpec.profileList.parse(rest) != nil else { return help(.profileList, io) }
            let configuration = try load(file, command: CommandSpec.profileList.name)
            for profile in configuration.profiles {
                let mark = profile.name == configuration.defaultProfile ? "*" : " "
                let key =
                    (profile.key.map { "key \($0)" } ?? profile.keyEnvironment.map { "key from $\($0)" }
                        ?? (profile.keyCommand == nil ? "no key" : "key from its command"))
                    + (profile.keyCommand != nil && (profile.key != nil || profile.keyEnvironment != nil)
                        ? ", renewed by its command" : "")
                io.writeOutput(
                    TerminalText.safe(
                        "\(mark) \(profile.name)  \(profile.baseURL.absoluteString)  "
                            + "\(profile.model ?? "(the server's first model)")  \(key)") + "\n")
            }
            if configuration.profiles.isEmpty {
                io.writeError("\(CommandSpec.profileList.name): no profiles yet; add one with `sybil profile add`\n")
            }
            return .success
        case "use", "remove":
            let spec = first == "use" ? CommandSpec.profileUse : CommandSpec.profileRemove
            guard let parsed = try spec.parse(rest) else { return help(spec, io) }
            guard let profileName = parsed.positionals.first else { throw parsed.error("needs the profile's NAME") }
            var configuration = try load(file, command: spec.name)
            guard configuration.profile(named: profileName) != nil else {
                io.writeError("\(spec.name): there is no profile '\(TerminalText.oneLine(profileName))'\n")
                return .noInput
            }
            if first == "use" {
                configuration.defaultProfile = profileName
            } else {
                configuration.remove(named: profileName)
            }
            return save(configuration, to: file, command: spec.name, io: io)
        default:
            throw UsageError(command: name, message: "unknown subcommand '\(first)'")
        }
    }

    private static func add(_ parsed: ParsedArguments, file: ConfigurationFile, io: CommandIO) throws(UsageError)
        -> ExitCode
    {
        let command = CommandSpec.profileAdd.name
        guard let profileName = parsed.positionals.first else { throw parsed.error("needs the profile's NAME") }
        guard ClientProfile.isValidName(profileName) else {
            throw parsed.error("a profile name is 1 to 64 letters, digits, '.', '_' or '-', got '\(profileName)'")
        }
        var baseURL: URL?
        switch parsed.text(Option.baseURL).map(ServerAddress.parse) {
        case nil: break
        case .success(let url)?: baseURL = url
        case .failure(let error)?: throw parsed.error("--base-url \(error)")
        }
        let key = parsed.text(Option.key)
        let keyEnvironment = parsed.text(Option.keyEnvironment)
        if key != nil, keyEnvironment != nil { throw parsed.error("--key and --key-env exclude each other") }
        let keyCommand = parsed.text(Option.keyCommand)
        if let keyCommand, keyCommand.trimmingCharacters(in: .whitespaces).isEmpty || keyCommand.contains("\n") {
            throw parsed.error("--key-command needs one non-blank line, got '\(TerminalText.oneLine(keyCommand))'")
        }
        var configuration = try load(file, command: command)
        // An existing profile changes only in the fields given; what else it holds (written by
        // hand: headers, max_input_bytes, …) stays.
        var profile: ClientProfile
        if let existing = configuration.profile(named: profileName) {
            profile = existing
            if let baseURL { profile.baseURL = baseURL }
        } else {
            guard let baseURL else { throw parsed.error("needs --base-url URL for a new profile") }
            profile = ClientProfile(name: profileName, baseURL: baseURL)
        }
        if let model = parsed.text(Option.model) { profile.model = model }
        if let key {
            profile.key = key
            profile.keyEnvironment = nil
        }
        if let keyEnvironment {
            profile.keyEnvironment = keyEnvironment
            profile.key = nil
        }
        if let keyCommand { profile.keyCommand = keyCommand }
        if let system = parsed.text(Option.system) { profile.system = system }
        configuration.set(profile)
        if configuration.defaultProfile == nil { configuration.defaultProfile = profileName }
        return save(configuration, to: file, command: command, io: io)
    }

    private static func load(_ file: ConfigurationFile, command: String) throws(UsageError) -> ClientConfiguration {
        do {
            return try file.load() ?? ClientConfiguration()
        } catch {
            throw UsageError(command: command, message: error.description)
        }
    }

    private static func save(
        _ configuration: ClientConfiguration, to file: ConfigurationFile, command: String, io: CommandIO
    )
        -> ExitCode
    {
        do {
            try file.save(configuration)
            io.writeError("\(command): saved \(file.path)\n")
            return .success
        } catch {
            io.writeError("\(command): \(error)\n")
            return .cannotCreate
        }
    }

    private static func help(_ spec: CommandSpec, _ io: CommandIO) -> ExitCode {
        io.writeOutput(spec.help)
        return .success
    }
}
