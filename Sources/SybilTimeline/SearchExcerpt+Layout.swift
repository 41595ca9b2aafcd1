/// Where `SearchExcerpt` cuts a line that is wider than its width.
extension SearchExcerpt {
    /// A kept range of the line's characters, or the `…` that stands for a cut.
    enum Piece: Equatable {
        case range(Range<Int>)
        case ellipsis
    }

    /// The pieces of a line whose characters take `widths` columns, keeping `firstMatch` (the
    /// character range of the first marked word) in view and whole, at most `width` columns in all.
    /// `spaces` holds the indexes of the line's spaces (a window starts after one, not mid-word).
    ///
    /// A match is kept whole whenever it fits with an `…` on each side; one wider than that keeps
    /// its start.
    static func layout(widths: [Int], firstMatch: Range<Int>?, width: Int, spaces: Set<Int> = []) -> [Piece] {
        let count = widths.count
        guard width >= 1 else { return [] }
        if widths.reduce(0, +) <= width { return count == 0 ? [] : [.range(0..<count)] }
        let budget = width - 1
        let tailBudget = budget / 2
        let headBudget = budget - tailBudget
        guard width >= 3, let match = firstMatch, widths[..<match.upperBound].reduce(0, +) > headBudget else {
            let head = 0..<prefixEnd(widths, from: 0, budget: headBudget)
            let tail = suffixStart(widths, budget: tailBudget)..<count
            return [.range(head), .ellipsis, .range(tail)]
        }
        let leftEnd = prefixEnd(widths, from: 0, budget: (width - 2) / 3)
        let start = windowStart(widths, match: match.lowerBound, context: width / 5, spaces: spaces)
        // A window whose `…` would stand for nothing but spaces is no window.
        if start > leftEnd, (leftEnd..<start).contains(where: { !spaces.contains($0) }) {
            let around = window(widths, left: 0..<leftEnd, from: start, budget: budget)
            if around.end >= match.upperBound { return around.pieces }
        }
        if widths[..<match.upperBound].reduce(0, +) <= budget {
            return [.range(0..<prefixEnd(widths, from: 0, budget: budget)), .ellipsis]
        }
        // A wide match far from the start: the start shrinks (to nothing if need be) so that the
        // match and the `…` on each side fit.
        let needed = min(widths[match.lowerBound...].reduce(0, +), widths[match].reduce(0, +) + 1)
        let leftBudget = min((width - 2) / 3, max(0, budget - needed))
        let left = 0..<prefixEnd(widths, from: 0, budget: leftBudget)
        return window(widths, left: left, from: match.lowerBound, budget: budget).pieces
    }

    /// `left`, `…`, then the line from `start` (with a closing `…` when its end does not fit),
    /// and where the kept part after `start` ends.
    private static func window(
        _ widths: [Int], left: Range<Int>, from start: Int, budget: Int
    ) -> (pieces: [Piece], end: Int) {
        let remaining = budget - widths[left].reduce(0, +)
        if widths[start...].reduce(0, +) <= remaining {
            return ([.range(left), .ellipsis, .range(start..<widths.count)], widths.count)
        }
        let end = prefixEnd(widths, from: start, budget: remaining - 1)
        return ([.range(left), .ellipsis, .range(start..<end), .ellipsis], end)
    }

    /// The end of the longest run from `start` that fits in `budget` columns.
    private static func prefixEnd(_ widths: [Int], from start: Int, budget: Int) -> Int {
        var end = start
        var used = 0
        while end < widths.count, used + widths[end] <= budget {
            used += widths[end]
            end += 1
        }
        return end
    }

    /// The start of the longest run ending the line that fits in `budget` columns.
    private static func suffixStart(_ widths: [Int], budget: Int) -> Int {
        var start = widths.count
        var used = 0
        while start > 0, used + widths[start - 1] <= budget {
            used += widths[start - 1]
            start -= 1
        }
        return start
    }

    /// Where the window around a match starts: at most `context` columns before it, after a
    /// space when one is there (so the window does not open mid-word).
    private static func windowStart(_ widths: [Int], match: Int, context: Int, spaces: Set<Int>) -> Int {
        var start = match
        var used = 0
        while start > 0, used + widths[start - 1] <= context {
            used += widths[start - 1]
            start -= 1
        }
        if start > 0, !spaces.contains(start - 1), let space = (start..<match).first(where: spaces.contains) {
            return space + 1
        }
        return start
    }
}
