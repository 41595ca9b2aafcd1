import Foundation
import SybilClient

/// ``ChatTimelineAdapter/items(_:lastError:timeZone:)`` kept up to date instead of rebuilt: the
/// entries of the messages both calls share from the start are reused, and only those from the
/// first changed message on are built again (while a reply streams, that is the reply alone).
/// Building a long chat's entries on every frame (a calendar lookup and a hash of every
/// message's text) cost the app time in proportion to the chat's length; with the cache a
/// frame's cost does not grow with it. The answer is the adapter's, exactly.
public struct ChatTimelineCache: Sendable {
    private var messages: [ChatTranscriptMessage] = []
    /// The entries of `messages` (no error entry).
    private var built: [TimelineItem] = []
    /// After message `i`: how many entries were built, and the day last separated.
    private var endAfter: [Int] = []
    private var dayAfter: [DateComponents?] = []
    /// The zone days were counted in and its calendar, made when the first message is built: an
    /// app showing no chat, or an empty one, never resolves the local time zone (which loads
    /// ICU's zone data). The default zone, `autoupdatingCurrent`, always equals itself, so a
    /// change of the system's zone while a chat is shown affects only entries built after it.
    private var days: (timeZone: TimeZone, calendar: Calendar)?

    /// Messages whose entries were built by the last call (a measure of the work done).
    public private(set) var messagesBuilt = 0

    /// An empty cache.
    public init() {}

    /// The entries for `messages`, as ``ChatTimelineAdapter/items(_:lastError:timeZone:)``
    /// gives them.
    public mutating func items(
        _ messages: [ChatTranscriptMessage], lastError: String? = nil, timeZone: TimeZone = .autoupdatingCurrent
    ) -> [TimelineItem] {
        if let days, days.timeZone != timeZone {
            // Every entry is rebuilt in the new zone (and none kept when no message is left).
            self.days = nil
            self.messages = []
            built = []
            endAfter = []
            dayAfter = []
        }
        let kept = sharedPrefix(with: messages)
        messagesBuilt = messages.count - kept
        if kept < self.messages.count || kept < messages.count {
            built.removeSubrange((kept == 0 ? 0 : endAfter[kept - 1])...)
            endAfter.removeSubrange(kept...)
            dayAfter.removeSubrange(kept...)
            var lastDay = kept == 0 ? nil : dayAfter[kept - 1]
            let calendar = days?.calendar ?? ChatTimelineAdapter.calendar(in: timeZone)
            days = (timeZone, calendar)
            for message in messages[kept...] {
                ChatTimelineAdapter.append(message, to: &built, lastDay: &lastDay, calendar: calendar)
                endAfter.append(built.count)
                dayAfter.append(lastDay)
            }
            self.messages = messages
        }
        guard let error = ChatTimelineAdapter.errorItem(after: messages, lastError: lastError) else { return built }
        return built + [error]
    }

    /// How many messages from the start are the same as last time. Messages the model did not
    /// touch are the very same values (their strings share storage), so blocks of them are
    /// first compared as bytes — identical bytes are equal values — and only where the bytes
    /// differ does `==` decide; a frame that changed the last message costs a memory compare,
    /// not a comparison of every message's fields.
    private func sharedPrefix(with new: [ChatTranscriptMessage]) -> Int {
        let limit = min(new.count, messages.count)
        let block = 64
        let stride = MemoryLayout<ChatTranscriptMessage>.stride
        var index = 0
        new.withUnsafeBytes { newBytes in
            messages.withUnsafeBytes { oldBytes in
                while index + block <= limit,
                    memcmp(
                        newBytes.baseAddress! + index * stride, oldBytes.baseAddress! + index * stride, block * stride)
                        == 0
                {
                    index += block
                }
            }
        }
        while index < limit, new[index] == messages[index] { index += 1 }
        return index
    }
}
