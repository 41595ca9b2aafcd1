/// Where `SearchExcerpt` cuts a line that is wider than its width.
extension SearchExcerpt {
    /// A kept range of the line's characters, or the `…` that stands for a cut.
    enum Piece: Equatable {
        case range(Range<Int>)
        case ellipsis
    }

    /// The pieces of a line whose characters take `widths` columns, keeping `firstMatch` (a
    /// character index) in view, at most `width` columns in all.
    /// `spaces` holds the indexes of the line's spaces (a window starts after one, not mid-word).
    static func layout(widths: [Int], firstMatch: Int?, width: Int, spaces: Set<Int> = []) -> [Piece] {
        let count = widths.count
        guard width >= 1 else { return [] }
        if widths.reduce(0, +) <= width { return count == 0 ? [] : [.range(0..<count)] }
        let budget = width - 1
        let tailBudget = budget / 2
        let headBudget = budget - tailBudget
        let matchEnd = firstMatch.map { $0 + 1 } ?? 0
        if width < 3 || firstMatch == nil || widths[..<matchEnd].reduce(0, +) <= headBudget {
            let head = 0..<prefixEnd(widths, from: 0, budget: headBudget)
            let tail = suffixStart(widths, budget: tailBudget)..<count
            return [.range(head), .ellipsis, .range(tail)]
        }
        let start = windowStart(widths, match: firstMatch ?? 0, context: width / 5, spaces: spaces)
        let leftEnd = prefixEnd(widths, from: 0, budget: (width - 2) / 3)
        if start <= leftEnd {
            return [.range(0..<prefixEnd(widths, from: 0, budget: budget)), .ellipsis]
        }
        let left = 0..<leftEnd
        let remaining = budget - widths[left].reduce(0, +)
        if widths[start...].reduce(0, +) <= remaining {
            return [.range(left), .ellipsis, .range(start..<count)]
        }
        let right = start..<prefixEnd(widths, from: start, budget: remaining - 1)
        return [.range(left), .ellipsis, .range(right), .ellipsis]
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
