/// Process exit statuses, following BSD `sysexits.h` where one fits.
public enum ExitCode: Int32, Sendable {
    /// Success.
    case success = 0
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input was read but is invalid (EX_DATAERR).
    case invalidData = 65
    /// An input file could not be read (EX_NOINPUT).
    case noInput = 66
    /// A service could not be reached (sysexits EX_UNAVAILABLE).
    case unavailable = 69
    /// An output file could not be created (sysexits EX_CANTCREAT).
    case cannotCreate = 73
    /// The peer broke the protocol (sysexits EX_PROTOCOL).
    case protocolError = 76
    /// The server refused the key (sysexits EX_NOPERM).
    case permissionDenied = 77
    /// The person interrupted the command (Ctrl+C): 128 + SIGINT, as shells report it.
    case interrupted = 130
}
