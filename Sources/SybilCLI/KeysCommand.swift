import SybilStore

/// `sybil keys set|list|remove`: the user's API keys in the Secret Service, or in 0600 files
/// when the session has none (``KeyStores/open(environment:)`` decides). A key is read from
/// standard input only and never written to standard output or standard error.
enum KeysCommand {
    static let name = "sybil keys"

    /// The NAME argument's help, shared by `set` and `remove`.
    static let nameHelp = "The key's name: 1 to \(KeyStores.maximumNameLength) letters, digits, '.', '_' or '-'."

    /// The subcommands, one line each.
    static let table = CommandTable(
        group: spec,
        entries: [
            .init("set") { arguments, io throws(UsageError) in
                guard let name = try parseName(arguments, spec: setSpec) else { return help(setSpec, io) }
                return set(name, io: io)
            },
            .init("list") { arguments, io throws(UsageError) in
                guard try listSpec.parse(arguments) != nil else { return help(listSpec, io) }
                return list(io: io)
            },
            .init("remove") { arguments, io throws(UsageError) in
                guard let name = try parseName(arguments, spec: removeSpec) else { return help(removeSpec, io) }
                return remove(name, io: io)
            },
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    /// The NAME argument, checked; `nil` when help was asked for.
    static func parseName(_ arguments: [String], spec: CommandSpec<NoOptions>) throws(UsageError) -> String? {
        let parsed: ParsedArguments<NoOptions>
        do {
            guard let given = try spec.parse(arguments) else { return nil }
            parsed = given
        } catch  where error.message.hasPrefix("takes one NAME") {
            // The extra word may be the key itself: it is never quoted back.
            throw UsageError(
                command: spec.name,
                message: "takes only NAME; a key is read from standard input, never from an argument")
        }
        guard let name = parsed.positionals.first else {
            throw UsageError(command: spec.name, message: "needs the key's NAME, e.g. \(spec.name) openai")
        }
        do {
            try KeyStores.validate(name: name)
        } catch {
            throw UsageError(command: spec.name, message: error.description)
        }
        return name
    }

    private static func help(_ spec: CommandSpec<NoOptions>, _ io: CommandIO) -> ExitCode {
        io.writeOutput(spec.help)
        return .success
    }

    private static func set(_ name: String, io: CommandIO) -> ExitCode {
        let command = setSpec.name
        let bytes: [UInt8]
        if io.inputIsTerminal {
            switch TerminalSecretInput.readLine(prompt: "Key for '\(name)' (not shown): ", io: io) {
            case .line(let line): bytes = line
            case .cancelled:
                io.writeError("\(command): cancelled; nothing was stored.\n")
                return .interrupted
            case .failed(let reason):
                io.writeError("\(command): cannot read the key from the terminal: \(reason)\n")
                return .noInput
            }
        } else {
            guard let all = SybilCommandLine.readInput(nil, io: io) else { return .noInput }
            bytes = withoutTrailingNewline(all)
        }
        guard !bytes.isEmpty else {
            io.writeError(
                "\(command): the key read from standard input is empty; pipe it in, e.g. \(command) \(name) < key.txt\n"
            )
            return .invalidData
        }
        guard let secret = String(validating: bytes, as: UTF8.self) else {
            io.writeError(
                "\(command): the key read from standard input is not UTF-8 text; pass the key itself, not a file of another encoding.\n"
            )
            return .invalidData
        }
        guard let store = open(command, io: io) else { return .cannotCreate }
        do {
            try store.setKey(secret, named: name)
        } catch {
            io.writeError("\(command): \(error)\n")
            return .cannotCreate
        }
        io.writeError("\(command): stored '\(name)' in \(store.location).\n")
        return .success
    }

    private static func list(io: CommandIO) -> ExitCode {
        let command = listSpec.name
        guard let store = open(command, io: io) else { return .noInput }
        let names: [String]
        do {
            names = try store.keyNames()
        } catch {
            io.writeError("\(command): \(error)\n")
            return .noInput
        }
        for name in names { io.writeOutput(name + "\n") }
        io.writeError("\(command): \(names.count) \(names.count == 1 ? "key" : "keys") in \(store.location).\n")
        return .success
    }

    private static func remove(_ name: String, io: CommandIO) -> ExitCode {
        let command = removeSpec.name
        guard let store = open(command, io: io) else { return .cannotCreate }
        let removed: Bool
        do {
            removed = try store.removeKey(named: name)
        } catch {
            io.writeError("\(command): \(error)\n")
            return .cannotCreate
        }
        guard removed else {
            io.writeError(
                "\(command): there is no key '\(name)' in \(store.location); `sybil keys list` shows the names.\n")
            return .noInput
        }
        io.writeError("\(command): removed '\(name)' from \(store.location).\n")
        return .success
    }

    /// The key store, with its notice (if any) on standard error; `nil` after saying why it
    /// cannot be opened.
    private static func open(_ command: String, io: CommandIO) -> (any KeyStore)? {
        do {
            let (store, notice) = try KeyStores.open(environment: io.environment)
            if let notice { io.writeError("\(command): \(notice)\n") }
            return store
        } catch {
            io.writeError("\(command): \(error)\n")
            return nil
        }
    }

    /// `bytes` without one trailing `\n` (or `\r\n`).
    static func withoutTrailingNewline(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.last == 0x0A else { return bytes }
        let line = bytes.dropLast()
        return Array(line.last == 0x0D ? line.dropLast() : line)
    }
}
