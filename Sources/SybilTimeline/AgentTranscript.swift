import Foundation
import SybilWire

/// What the Agent transcript shows (SPEC §6): visible messages only (tool calls and results
/// and internal messages stay in the history, hidden here, whether loaded or live), a date
/// separator before the first message of each calendar day in the injected time zone (days
/// only move forward, so each separator appears once even when a client-given time is out of
/// order), and a history window of visible messages.
///
/// The window starts as the newest ``pageSize`` visible messages and is kept by the cursor of
/// its oldest message: live messages join it at the bottom without pushing rows out at the
/// top, and ``showOlder(in:)`` grows it by a page of visible messages when the reader reaches
/// the top (an older page is loaded first when none is merged above it). Rows are identified
/// by message id and day, so a scroll anchor (a visible message id) survives a prepend and
/// hidden messages arriving.
public struct AgentTranscript: Sendable {
    /// The time zone whose calendar days the separators follow.
    public let timeZone: TimeZone
    /// Visible messages per window step.
    public let pageSize: Int
    /// The rows, oldest first.
    public private(set) var rows: [AgentTranscriptRow] = []
    /// The cursor of the window's oldest message, `nil` before the first visible message.
    public private(set) var windowStart: AgentCursor?
    /// Visible messages merged above the window (shown by ``showOlder(in:)`` without loading).
    public private(set) var visibleAboveWindow = 0

    private var rowIndexById: [AgentTranscriptRow.ID: Int] = [:]
    /// What the rows were built from: the history's ``AgentRoomHistory/rewrites``, the
    /// window's first index and the end of what was read, and the last day shown. While the
    /// history only grew at the end, an update reads only the new messages.
    private var built: (rewrites: Int, start: Int, end: Int, day: AgentTranscriptDay?)?

    /// A transcript with days in `timeZone` and windows of `pageSize` visible messages.
    public init(timeZone: TimeZone, pageSize: Int = 50) {
        precondition(pageSize > 0, "a window step holds at least one message")
        self.timeZone = timeZone
        self.pageSize = pageSize
    }

    /// Rebuilds the rows from `history`.
    public mutating func update(from history: AgentRoomHistory) {
        let total = history.visibleCount
        if windowStart == nil, total > 0 {
            windowStart = history.messages[history.index(ofVisible: max(0, total - pageSize))].cursor
        }
        guard let windowStart else {
            rows = []
            rowIndexById = [:]
            visibleAboveWindow = 0
            built = nil
            return
        }
        let start = history.firstIndex(atOrAfter: windowStart)
        visibleAboveWindow = history.visibleCount(before: start)
        if let built, built.rewrites == history.rewrites, built.start == start, built.end <= history.messages.count {
            // Only appended since the last build: add the new messages' rows.
            let day = appendRows(history.messages[built.end...], after: built.day)
            self.built = (history.rewrites, start, history.messages.count, day)
            return
        }
        rows = []
        rows.reserveCapacity((total - visibleAboveWindow) * 11 / 10 + 1)
        rowIndexById = [:]
        rowIndexById.reserveCapacity(rows.capacity)
        let day = appendRows(history.messages[start...], after: nil)
        built = (history.rewrites, start, history.messages.count, day)
    }

    /// Appends the rows of `messages`' visible ones, a day separator where the day changes
    /// from `currentDay`; returns the last day shown.
    private mutating func appendRows(
        _ messages: ArraySlice<AgentRoomMessage>, after currentDay: AgentTranscriptDay?
    ) -> AgentTranscriptDay? {
        var currentDay = currentDay
        for message in messages where message.isVisible {
            let day = self.day(of: message)
            // Days only move forward: a message whose (client-given) time falls on an earlier
            // day stays under the current separator, so each day's separator appears once and
            // row ids stay unique.
            if currentDay.map({ day > $0 }) ?? true {
                currentDay = day
                rowIndexById[.day(day)] = rows.count
                rows.append(.day(day))
            }
            rowIndexById[.message(message.messageId)] = rows.count
            rows.append(.message(message))
        }
        return currentDay
    }

    /// The reader reached the top: shows up to a page of the visible messages merged above
    /// the window and returns how many it showed (0: load an older page first).
    public mutating func showOlder(in history: AgentRoomHistory) -> Int {
        update(from: history)
        guard visibleAboveWindow > 0 else { return 0 }
        let shown = min(pageSize, visibleAboveWindow)
        windowStart = history.messages[history.index(ofVisible: visibleAboveWindow - shown)].cursor
        update(from: history)
        return shown
    }

    /// The calendar day of `message` in the time zone.
    public func day(of message: AgentRoomMessage) -> AgentTranscriptDay {
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(message.createdAt) / 1_000))
        return AgentTranscriptDay(milliseconds: message.createdAt, offsetSeconds: offset)
    }

    /// The row index of `id`, when it is shown.
    public func rowIndex(of id: AgentTranscriptRow.ID) -> Int? { rowIndexById[id] }

    /// The scroll anchor for the row at `index`: that row's message id, or for a separator
    /// the id of the message below it. Anchors are visible message ids only: separators move
    /// when older messages of their day are prepended.
    public func anchor(forRowAt index: Int) -> String? {
        guard rows.indices.contains(index) else { return nil }
        return rows[index...].lazy.compactMap(\.message).first?.messageId
    }

    /// Unread public assistant replies after the shared read cursor of `readState`. When the
    /// merged history does not reach back to that cursor, the server's count stands for the
    /// replies not loaded (whichever of it and the merged count is larger).
    public static func unreadCount(in history: AgentRoomHistory, readState: AgentReadState?) -> Int {
        let readCursor = readState?.readCursor
        let merged = history.unreadCount(after: readCursor)
        let covered =
            !history.hasMoreBefore
            || (readCursor.flatMap { cursor in history.oldestCursor.map { $0 <= cursor } } ?? false)
        return covered ? merged : max(merged, readState?.unread ?? 0)
    }

    /// The message the "new" marker goes above: the first public assistant reply after the
    /// shared read cursor of `readState` among the merged messages (when the history does not
    /// reach back to the cursor, the first loaded one), or `nil` when nothing is unread or the
    /// read position is not known.
    public static func unreadMarker(in history: AgentRoomHistory, readState: AgentReadState?) -> String? {
        guard let readState else { return nil }
        let messages = history.messages
        return messages[history.firstIndex(after: readState.readCursor)...].first(where: \.countsAsUnread)?.messageId
    }
}
