import SybilClient
import SybilWire

/// The declarations of `sybil records` and its subcommands: options, arguments and help.
extension RecordsCommand {
    static let spec = CommandSpec<NoOptions>(
        name: RecordsCommand.name,
        overview: "Local-first records: moods, breathing and meditation sessions, a profile.",
        usage: .subcommands(optional: false),
        subcommands: [
            CommandRow(label: "add mood SCORE", help: "Save a mood from 1 to 5 (--note TEXT to add a note)."),
            CommandRow(label: "add breathing", help: "Save a breathing session (--seconds N, --cycles N)."),
            CommandRow(label: "add meditation", help: "Save a meditation session (--seconds N)."),
            CommandRow(label: "add profile NAME", help: "Save the display name (the newest one is in force)."),
            CommandRow(label: "list", help: "Print the saved records, newest first, with their state."),
            CommandRow(label: "sync", help: "Upload every unsynced record and mark what the server\nconfirmed."),
        ],
        notes: """
            Records are saved on this device first ($XDG_DATA_HOME/sybil/client/records.sqlite),
            so adding one never waits for a network. `sybil records sync` uploads them in
            batches; a record is marked synced only once the server confirmed it, so an
            interrupted sync is simply run again and nothing is stored twice.
            `sybil records <subcommand> --help` says more.
            """)
}

extension RecordsAddCommand {
    static let spec = CommandSpec<Options>(
        name: RecordsAddCommand.name, overview: "Save a record on this device.",
        usage: .lines([
            "sybil records add mood SCORE [--note TEXT]", "sybil records add breathing --seconds N [--cycles N]",
            "sybil records add meditation --seconds N", "sybil records add profile NAME...",
        ]),
        discussion: """
            The record gets a new id and the current time and is on disk when the command
            ends; it stays unsynced until `sybil records sync` uploads it.
            """,
        arguments: [
            CommandArgument(name: "SCORE", help: "The mood, a whole number from 1 (low) to 5 (high)."),
            CommandArgument(
                name: "NAME", help: "The display name (the arguments joined by spaces),\n1 to 100 characters.",
                repeats: true),
        ],
        options: [
            .text(
                "--note", valueName: "TEXT", into: \.note,
                help: "A note for a mood, at most \(Record.maxNoteBytes) bytes of UTF-8."),
            .integer(
                "--seconds", into: \.seconds,
                range: Int(Record.durationRange.lowerBound)...Int(Record.durationRange.upperBound),
                help: "How long the session lasted, {range} seconds."),
            .integer(
                "--cycles", into: \.cycles,
                range: Int(Record.cyclesRange.lowerBound)...Int(Record.cyclesRange.upperBound),
                help: "Breathing cycles done, {range} (default 0)."),
        ],
        exitStatus: """
            0 saved, 64 usage error, 65 a value the records contract refuses, 73 the
            records cannot be written.
            """)

    /// The options of `sybil records add`.
    struct Options: CommandOptions {
        var note: String?
        var seconds: Int?
        var cycles: Int?
    }
}

extension RecordsListCommand {
    static let spec = CommandSpec<Options>(
        name: RecordsListCommand.name, overview: "Print the records saved on this device, newest first.",
        usage: .spelled,
        discussion: """
            One line per record: its time (UTC), what it holds, its sync state and its id.
            A record the server rejected stays unsynced and shows the server's reason. With
            --json, one JSON array of the records instead (docs/cli-json.md). The counts go to
            standard error.
            """,
        options: [
            .flag("--unsynced", into: \.unsynced, help: "Only the records not synced yet."),
            .integer(
                "--limit", into: \.limit, range: 1...10_000, default: 50,
                help: "Print at most N records, {range} (default {default})."),
            .flag("--json", into: \.json, help: "Print the records as one JSON array."),
        ],
        exitStatus: """
            0 success, 64 usage error, 66 the records cannot be read, 73 the records file
            cannot be opened.
            """)

    /// The options of `sybil records list`.
    struct Options: CommandOptions {
        var unsynced = false
        var limit = 0
        var json = false
    }
}

extension RecordsSyncCommand {
    private static let deadline = RecordsHTTPClient.defaultDeadline.components.seconds

    static let spec = CommandSpec<ClientCommand.Options>(
        name: RecordsSyncCommand.name, overview: "Upload every unsynced record and mark what the server confirmed.",
        discussion: """
            Sends the records in batches of up to 500, oldest first. Each record is marked
            synced only after the server's answer for it says it is stored (new, or already
            there from an earlier, interrupted sync), so a record is never stored twice and a
            synced record is never sent again. A record the server rejects stays unsynced
            with the reason (see `sybil records list --unsynced`) and is offered again next
            time. With no server chosen (see `sybil ask --help`) the reference server runs in
            this process, keeping its data in $XDG_DATA_HOME/sybil/embedded. There is no
            --in-memory here: records marked synced by a server that keeps nothing would
            never be sent anywhere again. Each batch must be answered in full within \(deadline) s
            (the profile's timeout when it sets one), however the server paces its answer;
            after that the sync stops; what the server had not confirmed stays unsynced.
            """,
        options: ServerTarget.options().within(\.server) + [.help],
        exitStatus: """
            0 every record is synced, 64 usage error, 65 the server rejected some records
            (they stay unsynced), 69 the server could not be reached, did not answer in time
            or refused the sync, 73 the records cannot be read or written, 76 the server
            broke the contract, 77 the server refused the key (401 or 403).
            """)
}
