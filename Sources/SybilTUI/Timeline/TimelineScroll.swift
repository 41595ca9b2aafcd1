import SybilTimeline

/// Where a virtualized timeline is scrolled: following the bottom, or anchored to an item (its
/// id, and how many of its lines are above the viewport's top). An anchor names an item, not a
/// row number, so when an older page is prepended the same item stays at the same screen row
/// (SPEC §4.4's prepend anchor; ``prependAnchor(at:)`` hands it to SybilTimeline's
/// `PrependAnchor` for the live-row hold). New items at the bottom are followed only while the
/// view is at the bottom; scrolled up, they are counted instead.
///
/// The operations only record what the person asked for; ``TimelineView`` resolves them
/// against the items' laid-out heights when it draws, and updates ``isNearTop``,
/// ``itemsBelow`` and ``newItemCount``.
public struct TimelineScroll: Sendable, Hashable {
    /// Following the bottom, or anchored to an item.
    public enum Position: Sendable, Hashable {
        /// The newest line is on the bottom row and stays there as items arrive.
        case followingBottom
        /// `itemId`'s line `lineOffset` (from 0) is on the top row.
        case anchored(itemId: String, lineOffset: Int)
    }

    /// Lines one wheel notch scrolls.
    public static var wheelLines: Int { 3 }

    /// The position as of the last draw (or as set since).
    public private(set) var position: Position = .followingBottom
    /// Whether the viewport's top is within one screen of the oldest loaded item, as of the
    /// last draw: the moment to load the older page.
    public private(set) var isNearTop = false
    /// Items entirely below the viewport, as of the last draw.
    public private(set) var itemsBelow = 0
    /// Items that arrived below while scrolled up (0 while following).
    public private(set) var newItemCount = 0
    /// The viewport's height at the last draw.
    public private(set) var viewportRows = 0

    private var pendingLines = 0
    private var pendingPages = 0
    private var pendingTop = false
    /// Where the anchor item was at the last draw, and how many items there were: a prepend
    /// moves it by the number of items added, so it is found without a search.
    private var anchorIndexHint = 0
    private var lastCount = 0
    /// The newest item seen while at the bottom.
    private var lastSeenId: String?

    /// Following the bottom.
    public init() {}

    /// Whether the view follows the bottom.
    public var isFollowingBottom: Bool { position == .followingBottom }

    /// Scrolls by `lines`: positive towards newer items, negative towards older.
    public mutating func scroll(byLines lines: Int) {
        pendingLines += lines
    }

    /// One wheel notch up (towards older items).
    public mutating func wheelUp() { scroll(byLines: -Self.wheelLines) }

    /// One wheel notch down (towards newer items).
    public mutating func wheelDown() { scroll(byLines: Self.wheelLines) }

    /// One screen up, keeping one line of overlap.
    public mutating func pageUp() { pendingPages -= 1 }

    /// One screen down, keeping one line of overlap.
    public mutating func pageDown() { pendingPages += 1 }

    /// To the oldest loaded item.
    public mutating func scrollToTop() {
        pendingTop = true
        pendingLines = 0
        pendingPages = 0
    }

    /// To the bottom, following it again.
    public mutating func scrollToBottom() {
        position = .followingBottom
        pendingTop = false
        pendingLines = 0
        pendingPages = 0
        newItemCount = 0
    }

    /// The anchor as SybilTimeline's `PrependAnchor`, taken before an older page is applied, so
    /// live rows can be held while the position is restored; `nil` while following the bottom.
    public func prependAnchor<Instant: InstantProtocol>(at now: Instant) -> PrependAnchor<Instant>?
    where Instant.Duration == Duration {
        guard case .anchored(let itemId, let lineOffset) = position else { return nil }
        return PrependAnchor(rowId: itemId, rowMinY: 0, contentOffset: Double(lineOffset), at: now)
    }

    /// Puts the item of `anchor` back at its row (after the older page was applied), marking
    /// the anchor restored.
    public mutating func restore<Instant: InstantProtocol>(_ anchor: inout PrependAnchor<Instant>)
    where Instant.Duration == Duration {
        let lineOffset = anchor.restore(rowMinY: 0)
        position = .anchored(itemId: anchor.rowId, lineOffset: max(Int(lineOffset.rounded()), 0))
    }

    /// Asks SybilTimeline's `OlderPageTrigger` (which spaces loads and waits for a running one)
    /// whether to load the older page now, the distance being "near the top" or not.
    public func shouldLoadOlderPage<Instant: InstantProtocol>(
        trigger: inout OlderPageTrigger<Instant>, hasOlderEntries: Bool, at now: Instant
    ) -> Bool where Instant.Duration == Duration {
        let distance = isNearTop ? 0 : OlderPageTrigger<Instant>.threshold + 1
        return trigger.scrolled(distanceFromTop: distance, hasOlderEntries: hasOlderEntries, at: now)
    }

    /// The first item (index from 0) and line on the top row of a viewport `rows` high, after
    /// applying what was asked since the last draw and clamping: `id(i)` and `height(i)` give
    /// item `i`'s id and line count. Touches only the items near the viewport (and near the
    /// end while counting new items), never all of them.
    mutating func resolve(count: Int, rows: Int, id: (Int) -> String, height: (Int) -> Int) -> (index: Int, line: Int) {
        viewportRows = rows
        defer {
            pendingLines = 0
            pendingPages = 0
            pendingTop = false
            lastCount = count
        }
        guard count > 0, rows > 0 else {
            position = .followingBottom
            isNearTop = true
            itemsBelow = 0
            newItemCount = 0
            lastSeenId = nil
            return (0, 0)
        }
        let delta = pendingLines + pendingPages * max(rows - 1, 1)
        var top: (index: Int, line: Int)
        if pendingTop {
            top = (0, 0)
        } else {
            switch position {
            case .followingBottom:
                top = bottomTop(count: count, rows: rows, height: height)
                if delta >= 0 {
                    return finish(top: top, following: true, count: count, rows: rows, id: id, height: height)
                }
            case .anchored(let itemId, let lineOffset):
                top = (locate(itemId, count: count, id: id), lineOffset)
            }
        }
        // Move by delta lines.
        var (index, line) = top
        line += delta
        while line < 0, index > 0 {
            index -= 1
            line += height(index)
        }
        line = max(line, 0)
        while index < count - 1, line >= height(index) {
            line -= height(index)
            index += 1
        }
        line = min(line, max(height(index) - 1, 0))
        // At or past the bottom: follow it again.
        var below = height(index) - line
        var next = index + 1
        while below <= rows, next < count {
            below += height(next)
            next += 1
        }
        if below <= rows {
            return finish(
                top: bottomTop(count: count, rows: rows, height: height), following: true, count: count, rows: rows,
                id: id, height: height)
        }
        return finish(top: (index, line), following: false, count: count, rows: rows, id: id, height: height)
    }

    private mutating func finish(
        top: (index: Int, line: Int), following: Bool, count: Int, rows: Int, id: (Int) -> String,
        height: (Int) -> Int
    ) -> (index: Int, line: Int) {
        anchorIndexHint = top.index
        if following {
            position = .followingBottom
            lastSeenId = id(count - 1)
            newItemCount = 0
        } else {
            position = .anchored(itemId: id(top.index), lineOffset: top.line)
            newItemCount = countNew(count: count, id: id)
        }
        // Lines above the top, up to a screen (every item takes a line at least, so far from
        // the top nothing above needs laying out).
        if top.index + top.line > rows {
            isNearTop = false
        } else {
            var above = top.line
            var index = top.index
            while above <= rows, index > 0 {
                index -= 1
                above += height(index)
            }
            isNearTop = above <= rows
        }
        // Items below the last visible one.
        var shown = height(top.index) - top.line
        var last = top.index
        while shown < rows, last < count - 1 {
            last += 1
            shown += height(last)
        }
        itemsBelow = count - 1 - last
        return top
    }

    /// Items after the newest one seen at the bottom, searched from the end.
    private mutating func countNew(count: Int, id: (Int) -> String) -> Int {
        guard let lastSeenId else {
            self.lastSeenId = id(count - 1)
            return newItemCount
        }
        var index = count - 1
        while index >= 0 {
            if id(index) == lastSeenId { return count - 1 - index }
            index -= 1
        }
        // The item is gone: count from the current end from now on.
        self.lastSeenId = id(count - 1)
        return newItemCount
    }

    /// The anchor item's index: where it was, where a prepend moved it, else by search; an
    /// item that is gone leaves its old place.
    private func locate(_ itemId: String, count: Int, id: (Int) -> String) -> Int {
        for guess in [anchorIndexHint, anchorIndexHint + (count - lastCount)] where guess >= 0 && guess < count {
            if id(guess) == itemId { return guess }
        }
        for index in 0..<count where id(index) == itemId { return index }
        return min(max(anchorIndexHint, 0), count - 1)
    }

    /// The top of the viewport when the last line is on the bottom row (the first item at the
    /// top when everything fits).
    private func bottomTop(count: Int, rows: Int, height: (Int) -> Int) -> (index: Int, line: Int) {
        var total = 0
        var index = count
        while index > 0, total < rows {
            index -= 1
            total += height(index)
        }
        return total < rows ? (0, 0) : (index, total - rows)
    }
}
