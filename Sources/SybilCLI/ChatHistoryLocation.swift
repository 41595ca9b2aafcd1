import Foundation
import SybilStore

/// Where the command line keeps the local chat history, and opening it: one place for every
/// command that reads or writes saved chats (`sybil search`, `sybil history`, `sybil ask`).
enum ChatHistoryLocation {
    /// `$XDG_DATA_HOME/sybil/client/chats.sqlite` (XDG rules as ``XDGDirectories``).
    static func path(environment: [String: String]) -> String {
        XDGDirectories(environment: environment).sybilData + "/client/chats.sqlite"
    }

    /// What opening the history for reading found.
    enum Opened {
        /// The history.
        case store(SQLiteChatHistory)
        /// No history has been saved yet (the file does not exist; nothing was created).
        case none
        /// It could not be opened; the reason is on standard error.
        case failed
    }

    /// Opens the history to read it, without creating it when missing; an error is reported
    /// on standard error as `command: cannot open the chat history 'PATH': REASON`.
    static func openForReading(io: CommandIO, command: String) -> Opened {
        let path = path(environment: io.environment)
        guard FileManager.default.fileExists(atPath: path) else { return .none }
        return open(path: path, io: io, command: command).map(Opened.store) ?? .failed
    }

    /// Opens (creating when missing) the history at `path`, or reports why not and returns `nil`.
    /// The history a chat command writes to: the file when `keeping`, else a throwaway one in
    /// memory; `nil` (the reason on standard error) when the file cannot be opened.
    static func store(keeping: Bool, io: CommandIO, command: String) -> (any ChatHistoryStore)? {
        guard keeping else { return InMemoryChatHistory() }
        return open(path: path(environment: io.environment), io: io, command: command)
    }

    static func open(path: String, io: CommandIO, command: String) -> SQLiteChatHistory? {
        do {
            return try SQLiteChatHistory(path: path)
        } catch {
            io.writeError("\(command): cannot open the chat history '\(path)': \(error)\n")
            return nil
        }
    }
}
