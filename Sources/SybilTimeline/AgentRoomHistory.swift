import SybilWire

/// The Agent room's merged history (SPEC §6): REST pages and stream messages merged by their
/// canonical identity (`messageId`), ordered by cursor, each message once. Hidden messages
/// (tool calls and results, internal notes) stay here with their cursors; only presentation
/// (``AgentTranscript``) leaves them out.
///
/// ``lastMergedCursor`` is the replay point: a stream connection asks for everything after it,
/// so nothing between two connections is missed. It only moves forward, over messages that
/// came from a source that is contiguous up to them: the newest page (everything up to its
/// `nextCursor`) and the stream (everything after the cursor it replayed from). Older pages
/// prepend below the oldest message; a page for a cursor that is no longer the oldest is stale
/// and dropped. A newest page that does not reach back to the replay point (more was written
/// than it holds) starts the history afresh from it, so the history never has a hole.
///
/// Positions are kept with prefix counts of visible messages and of unread-counting replies,
/// so windows and unread counts cost a binary search, not a scan of the history.
public struct AgentRoomHistory: Sendable {
    /// What applying a page or a message did.
    public struct Change: Sendable, Hashable {
        /// Messages merged for the first time, oldest first.
        public var inserted: [AgentRoomMessage] = []
        /// Messages already merged whose content the server changed (same id and cursor).
        public var updated: [AgentRoomMessage] = []
        /// Messages already merged exactly as they came again (replays, overlapping pages).
        public var duplicates = 0
        /// Messages refused because their id or cursor is taken by another message; each entry
        /// names the message and the clash.
        public var conflicts: [String] = []
        /// Messages dropped because a newest page could not reach back to them (see the type's
        /// documentation); the older ones are loaded again as older pages.
        public var droppedOlder = 0

        /// Creates an empty change.
        public init() {}

        /// Whether anything merged or changed.
        public var changedMessages: Bool { !inserted.isEmpty || !updated.isEmpty || droppedOlder > 0 }
    }

    /// Every merged message, ascending by cursor.
    public private(set) var messages: [AgentRoomMessage] = []
    /// The replay point: the newest cursor merged from a contiguous source, `nil` before any.
    public private(set) var lastMergedCursor: AgentCursor?
    /// Whether the server holds messages older than the oldest merged one (as the last page
    /// that reached the bottom of the history said).
    public private(set) var hasMoreBefore = false
    /// Counts the changes that touched messages already merged (an update, an insertion
    /// before the newest, a restart); appends at the end leave it alone, so a reader that saw
    /// `messages[0..<n]` under the same count knows only `messages[n...]` is new.
    public private(set) var rewrites = 0

    private var cursorsById: [String: AgentCursor] = [:]
    /// `visiblePrefix[i]` = visible messages among `messages[0..<i]`.
    private var visiblePrefix: [Int32] = [0]
    /// `unreadPrefix[i]` = public assistant replies among `messages[0..<i]`.
    private var unreadPrefix: [Int32] = [0]

    /// An empty history.
    public init() {}

    // MARK: Reading

    /// The oldest merged message's cursor: the `before` of the next older page.
    public var oldestCursor: AgentCursor? { messages.first?.cursor }

    /// Messages shown in the transcript.
    public var visibleCount: Int { Int(visiblePrefix[messages.count]) }

    /// The newest visible message.
    public var newestVisible: AgentRoomMessage? {
        guard visibleCount > 0 else { return nil }
        return messages[index(ofVisible: visibleCount - 1)]
    }

    /// The message with `messageId`, when merged.
    public func message(withId messageId: String) -> AgentRoomMessage? {
        guard let cursor = cursorsById[messageId], let index = exactIndex(of: cursor) else { return nil }
        return messages[index]
    }

    /// Whether a message with `messageId` is merged.
    public func contains(messageId: String) -> Bool { cursorsById[messageId] != nil }

    /// The index of the first message with a cursor after `cursor` (0 for `nil`).
    public func firstIndex(after cursor: AgentCursor?) -> Int {
        guard let cursor else { return 0 }
        return insertionIndex(of: cursor, after: true)
    }

    /// The index of the first message whose cursor is `cursor` or later.
    public func firstIndex(atOrAfter cursor: AgentCursor) -> Int {
        insertionIndex(of: cursor, after: false)
    }

    /// Visible messages before index `index`.
    public func visibleCount(before index: Int) -> Int { Int(visiblePrefix[index]) }

    /// The index in ``messages`` of the visible message with visible ordinal `ordinal` (0 is
    /// the oldest visible message).
    public func index(ofVisible ordinal: Int) -> Int {
        precondition(ordinal >= 0 && ordinal < visibleCount, "visible ordinal \(ordinal) out of 0..<\(visibleCount)")
        // The first index whose prefix exceeds the ordinal, minus one.
        var low = 0
        var high = messages.count
        while low < high {
            let middle = (low + high) / 2
            if Int(visiblePrefix[middle + 1]) <= ordinal { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Public assistant replies merged after `cursor` (all of them for `nil`).
    public func unreadCount(after cursor: AgentCursor?) -> Int {
        Int(unreadPrefix[messages.count] - unreadPrefix[firstIndex(after: cursor)])
    }

    // MARK: Merging

    /// Applies the answer to `GET agent/messages` without a cursor: the newest messages.
    public mutating func applyNewestPage(_ page: AgentRoomPage) -> Change {
        var change = Change()
        var restarted = false
        if let first = page.messages.first, page.hasMoreBefore, let replayPoint = lastMergedCursor,
            replayPoint < first.cursor
        {
            // The page does not reach back to what is merged: whatever lies between is
            // unknown, so the history begins afresh with the page.
            let keep = insertionIndex(of: first.cursor, after: false)
            change.droppedOlder = keep
            rebuild(Array(messages[keep...]))
            restarted = true
        }
        // The page's `hasMoreBefore` describes the history's bottom only when the page reaches it.
        if restarted || messages.isEmpty || page.messages.first.map({ $0.cursor <= messages[0].cursor }) == true {
            hasMoreBefore = page.hasMoreBefore
        }
        merge(page.messages, into: &change)
        advance(to: page.nextCursor)
        return change
    }

    /// Applies the answer to `GET agent/messages?before=<before>`; `nil` when `before` is no
    /// longer the oldest merged cursor (the page is stale and is not prepended).
    public mutating func applyOlderPage(_ page: AgentRoomPage, before: AgentCursor) -> Change? {
        guard before == oldestCursor else { return nil }
        var change = Change()
        let older = page.messages.filter { $0.cursor < before }
        merge(older, into: &change)
        hasMoreBefore = page.hasMoreBefore
        return change
    }

    /// Merges messages from a contiguous source newer than the replay point (the stream, or a
    /// page asked with `after`), advancing the replay point over them.
    public mutating func applyLive(_ incoming: [AgentRoomMessage]) -> Change {
        var change = Change()
        merge(incoming, into: &change)
        for message in incoming { advance(to: message.cursor) }
        return change
    }

    /// Merges one stream message.
    public mutating func applyLive(_ message: AgentRoomMessage) -> Change {
        applyLive([message])
    }

    // MARK: Private

    private mutating func advance(to cursor: AgentCursor?) {
        guard let cursor else { return }
        if lastMergedCursor.map({ $0 < cursor }) ?? true { lastMergedCursor = cursor }
    }

    private mutating func merge(_ incoming: [AgentRoomMessage], into change: inout Change) {
        // Prefixes stay exact for appends; anything else marks them stale from its index.
        var staleFrom: Int?
        for message in incoming {
            if let known = cursorsById[message.messageId] {
                guard known == message.cursor, let index = exactIndex(of: known) else {
                    change.conflicts.append(
                        "\(message.messageId) came with cursor \(message.cursor), merged at \(known)")
                    continue
                }
                if messages[index] == message {
                    change.duplicates += 1
                    continue
                }
                let before = messages[index]
                messages[index] = message
                rewrites += 1
                if before.isVisible != message.isVisible || before.countsAsUnread != message.countsAsUnread {
                    staleFrom = min(staleFrom ?? index, index)
                }
                change.updated.append(message)
                continue
            }
            let index = insertionIndex(of: message.cursor, after: false)
            if index < messages.count, messages[index].cursor == message.cursor {
                change.conflicts.append(
                    "\(message.messageId) came with cursor \(message.cursor), which \(messages[index].messageId) has")
                continue
            }
            messages.insert(message, at: index)
            cursorsById[message.messageId] = message.cursor
            change.inserted.append(message)
            if index != messages.count - 1 { rewrites += 1 }
            if staleFrom == nil, index == messages.count - 1 {
                visiblePrefix.append(visiblePrefix[index] + (message.isVisible ? 1 : 0))
                unreadPrefix.append(unreadPrefix[index] + (message.countsAsUnread ? 1 : 0))
            } else {
                staleFrom = min(staleFrom ?? index, index)
            }
        }
        if let staleFrom { recomputePrefixes(from: staleFrom) }
        change.inserted.sort { $0.cursor < $1.cursor }
    }

    private mutating func recomputePrefixes(from start: Int) {
        visiblePrefix.removeSubrange((start + 1)...)
        unreadPrefix.removeSubrange((start + 1)...)
        visiblePrefix.reserveCapacity(messages.count + 1)
        unreadPrefix.reserveCapacity(messages.count + 1)
        for index in start..<messages.count {
            visiblePrefix.append(visiblePrefix[index] + (messages[index].isVisible ? 1 : 0))
            unreadPrefix.append(unreadPrefix[index] + (messages[index].countsAsUnread ? 1 : 0))
        }
    }

    private mutating func rebuild(_ kept: [AgentRoomMessage]) {
        rewrites += 1
        messages = kept
        cursorsById = Dictionary(uniqueKeysWithValues: kept.map { ($0.messageId, $0.cursor) })
        visiblePrefix = [0]
        unreadPrefix = [0]
        recomputePrefixes(from: 0)
    }

    private func exactIndex(of cursor: AgentCursor) -> Int? {
        let index = insertionIndex(of: cursor, after: false)
        return index < messages.count && messages[index].cursor == cursor ? index : nil
    }

    /// The first index whose cursor is not below `cursor` (or, with `after`, above it).
    private func insertionIndex(of cursor: AgentCursor, after: Bool) -> Int {
        if let last = messages.last, last.cursor < cursor { return messages.count }
        var low = 0
        var high = messages.count
        while low < high {
            let middle = (low + high) / 2
            let below = after ? messages[middle].cursor <= cursor : messages[middle].cursor < cursor
            if below { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
