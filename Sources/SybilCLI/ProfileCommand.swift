import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore

/// `sybil profile add|list|use|remove`: the profiles of `config.toml`, edited by command.
enum ProfileCommand {
    static let name = "sybil profile"

    /// The subcommands, one line each.
    static let table = CommandTable(
        group: spec,
        entries: [
            .init("add", add), .init("list", list),
            .init("use") { arguments, io throws(UsageError) in try change(arguments, io: io, spec: useSpec) },
            .init("remove") { arguments, io throws(UsageError) in try change(arguments, io: io, spec: removeSpec) },
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    private static func list(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        guard try listSpec.parse(arguments) != nil else { return help(listSpec, io) }
        let configuration = try load(ConfigurationFile(environment: io.environment), command: listSpec.name)
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
                        + "\(profile.model ?? "(the server's first model)")  \(key)"
                        + (profile.apiPrefix.map { "  api_prefix \($0)" } ?? "")) + "\n")
        }
        if configuration.profiles.isEmpty {
            io.writeError("\(listSpec.name): no profiles yet; add one with `sybil profile add`\n")
        }
        return .success
    }

    /// `use NAME` or `remove NAME`, as `spec` says.
    private static func change(_ arguments: [String], io: CommandIO, spec: CommandSpec<NoOptions>) throws(UsageError)
        -> ExitCode
    {
        guard let parsed = try spec.parse(arguments) else { return help(spec, io) }
        guard let profileName = parsed.positionals.first else { throw parsed.error("needs the profile's NAME") }
        let file = ConfigurationFile(environment: io.environment)
        var configuration = try load(file, command: spec.name)
        guard configuration.profile(named: profileName) != nil else {
            io.writeError("\(spec.name): there is no profile '\(TerminalText.oneLine(profileName))'\n")
            return .noInput
        }
        if spec.name == useSpec.name {
            configuration.defaultProfile = profileName
        } else {
            configuration.remove(named: profileName)
        }
        return save(configuration, to: file, command: spec.name, io: io)
    }

    private static func add(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let parsed = try addSpec.parse(arguments) else { return help(addSpec, io) }
        let file = ConfigurationFile(environment: io.environment)
        let options = parsed.options
        let command = addSpec.name
        guard let profileName = parsed.positionals.first else { throw parsed.error("needs the profile's NAME") }
        guard ClientProfile.isValidName(profileName) else {
            throw parsed.error("a profile name is 1 to 64 letters, digits, '.', '_' or '-', got '\(profileName)'")
        }
        var apiPrefix: APIPrefix?
        if let text = options.apiPrefix {
            guard let prefix = APIPrefix(parsing: text) else {
                throw parsed.error("--api-prefix must be \(APIPrefix.rule), got '\(TerminalText.oneLine(text))'")
            }
            guard options.baseURL != nil else {
                throw parsed.error("--api-prefix needs --base-url URL: the prefix is a path under it")
            }
            apiPrefix = prefix
        }
        var baseURL: URL?
        switch options.baseURL.map({ ServerAddress.parse($0, keepingPath: apiPrefix != nil) }) {
        case nil: break
        case .success(let url)?: baseURL = url
        case .failure(let error)?: throw parsed.error("--base-url \(error)")
        }
        if let baseURL, let apiPrefix, !apiPrefix.path.isEmpty,
            ServerAddress.withoutTrailingSlash(baseURL).path.lowercased().hasSuffix("/" + apiPrefix.path.lowercased())
        {
            // `…/v1` with `/v1` asks `…/v1/v1/chat/completions`: a prefix said twice.
            throw parsed.error(
                "--base-url ends in \(apiPrefix) and --api-prefix \(apiPrefix) would ask"
                    + " \(TerminalText.oneLine(apiPrefix.url(base: baseURL, route: "chat/completions").absoluteString));"
                    + " give --api-prefix / (the base URL is the whole prefix) or the base URL without \(apiPrefix)")
        }
        let key = options.key
        let keyEnvironment = options.keyEnvironment
        if key != nil, keyEnvironment != nil { throw parsed.error("--key and --key-env exclude each other") }
        let keyCommand = options.keyCommand
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
        if let model = options.model { profile.model = model }
        if let key {
            profile.key = key
            profile.keyEnvironment = nil
        }
        if let keyEnvironment {
            profile.keyEnvironment = keyEnvironment
            profile.key = nil
        }
        if let keyCommand { profile.keyCommand = keyCommand }
        if let system = options.system { profile.system = system }
        if let timeout = options.timeout { profile.timeoutSeconds = timeout }
        if let baseURL {
            // A new base URL: its prefix as given, else `/v1` for a root or `…/v1` one (as
            // always), else the one the server answers on.
            if apiPrefix == nil, !ServerAddress.isPlain(baseURL) {
                switch await APIPrefixProbe(
                    http: DefaultHTTPClient.make(), key: probeKey(profile, io: io),
                    headers: HTTPHeaders(profile.headers.map { ($0.name, $0.value) })
                ).probe(base: baseURL) {
                case .success(let found):
                    apiPrefix = found.prefix
                    io.writeError(
                        "\(command): \(TerminalText.oneLine(found.answer.url.absoluteString)) answered"
                            + " (\(found.answer.summary)): the routes are under"
                            + " \(TerminalText.oneLine(found.prefix.url(base: baseURL, route: "").absoluteString))"
                            + " (api_prefix = \"\(found.prefix)\")\n")
                case .failure(let error):
                    io.writeError("\(command): \(error); nothing saved\n")
                    return .unavailable
                }
            }
            profile.apiPrefix = apiPrefix
        }
        configuration.set(profile)
        if configuration.defaultProfile == nil { configuration.defaultProfile = profileName }
        return save(configuration, to: file, command: command, io: io)
    }

    /// The key `profile` would send, for the prefix probe: its variable's value, its stored key
    /// or its command's output; `nil` when there is none yet (the probe then goes without).
    private static func probeKey(_ profile: ClientProfile, io: CommandIO) -> String? {
        if let variable = profile.keyEnvironment {
            return io.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let name = profile.key {
            return (try? KeyStores.open(environment: io.environment).store.key(named: name)) ?? nil
        }
        if let command = profile.keyCommand,
            case .success(let key) = KeyCommand(command, environment: io.environment).runNow()
        {
            return key
        }
        return nil
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

    private static func help(_ spec: some DeclaredCommand, _ io: CommandIO) -> ExitCode {
        io.writeOutput(spec.help)
        return .success
    }
}
