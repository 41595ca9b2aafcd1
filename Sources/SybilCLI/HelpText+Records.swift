/// The `--help` texts of `sybil records` and its subcommands.
extension HelpText {
    static let records = """
        OVERVIEW: Local-first records: moods, breathing and meditation sessions, a profile.

        USAGE: sybil records <subcommand> [<options>]

        SUBCOMMANDS:
          add mood SCORE          Save a mood from 1 to 5 (--note TEXT to add a note).
          add breathing           Save a breathing session (--seconds N, --cycles N).
          add meditation          Save a meditation session (--seconds N).
          add profile NAME        Save the display name (the newest one is in force).
          list                    Print the saved records, newest first, with their state.
          sync                    Upload every unsynced record and mark what the server
                                  confirmed.

        Records are saved on this device first ($XDG_DATA_HOME/sybil/client/records.sqlite),
        so adding one never waits for a network. `sybil records sync` uploads them in
        batches; a record is marked synced only once the server confirmed it, so an
        interrupted sync is simply run again and nothing is stored twice.
        `sybil records <subcommand> --help` says more.

        """

    static let recordsAdd = """
        OVERVIEW: Save a record on this device.

        USAGE: sybil records add mood SCORE [--note TEXT]
               sybil records add breathing --seconds N [--cycles N]
               sybil records add meditation --seconds N
               sybil records add profile NAME...

        The record gets a new id and the current time and is on disk when the command
        ends; it stays unsynced until `sybil records sync` uploads it.

        ARGUMENTS:
          SCORE                   The mood, a whole number from 1 (low) to 5 (high).
          NAME                    The display name (the arguments joined by spaces),
                                  1 to 100 characters.

        OPTIONS:
          --note TEXT             A note for a mood, at most 1000 bytes of UTF-8.
          --seconds N             How long the session lasted, 1 to 86400 seconds.
          --cycles N              Breathing cycles done, 0 to 10000 (default 0).
          -h, --help              Show this help.

        EXIT STATUS:
          0 saved, 64 usage error, 65 a value the records contract refuses, 73 the
          records cannot be written.

        """

    static let recordsList = """
        OVERVIEW: Print the records saved on this device, newest first.

        USAGE: sybil records list [--unsynced] [--limit N]

        One line per record: its time (UTC), what it holds, its sync state and its id.
        A record the server rejected stays unsynced and shows the server's reason. The
        counts go to standard error.

        OPTIONS:
          --unsynced              Only the records not synced yet.
          --limit N               Print at most N records, 1 to 10000 (default 50).
          -h, --help              Show this help.

        EXIT STATUS:
          0 success, 64 usage error, 66 the records cannot be read, 73 the records file
          cannot be opened.

        """

    static let recordsSync = """
        OVERVIEW: Upload every unsynced record and mark what the server confirmed.

        USAGE: sybil records sync [<options>]

        Sends the records in batches of up to 500, oldest first. Each record is marked
        synced only after the server's answer for it says it is stored (new, or already
        there from an earlier, interrupted sync), so a record is never stored twice and a
        synced record is never sent again. A record the server rejects stays unsynced
        with the reason (see `sybil records list --unsynced`) and is offered again next
        time. Without --api-url or SYBIL_API_URL the reference server runs in this
        process, keeping its data in $XDG_DATA_HOME/sybil/embedded (--in-memory for none).

        OPTIONS:
          --api-url URL           The server's base URL (default: $SYBIL_API_URL, else the
                                  embedded server).
          --token TOKEN           The bearer token (default: $SYBIL_TOKEN).
          --in-memory             Give the embedded server no data on disk.
          -h, --help              Show this help.

        EXIT STATUS:
          0 every record is synced, 64 usage error, 65 the server rejected some records
          (they stay unsynced), 69 the server could not be reached or refused the sync,
          73 the records cannot be read or written, 76 the server broke the contract.

        """
}
