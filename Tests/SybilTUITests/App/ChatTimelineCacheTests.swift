import Foundation
import SybilClient
import SybilCore
import Testing

@testable import SybilTUI

/// The cache answers exactly what the adapter answers, whatever changed, and builds only from
/// the first changed message on.
@Suite struct ChatTimelineCacheTests {
    private static let day: Int64 = 86_400_000

    private func message(_ index: Int, at time: Int64, state: ChatTranscriptMessage.State = .complete)
        -> ChatTranscriptMessage
    {
        ChatTranscriptMessage(
            id: "m\(index)", role: index % 2 == 0 ? .user : .assistant,
            text: "message \(index)", state: index % 2 == 0 ? .complete : state, createdAt: time)
    }

    @Test func aStreamingReplyRebuildsOnlyItself() {
        var messages = (0..<1_000).map { message($0, at: 1_800_000_000_000 + Int64($0) * 3_600_000) }
        var cache = ChatTimelineCache()
        #expect(cache.items(messages, timeZone: .gmt) == ChatTimelineAdapter.items(messages, timeZone: .gmt))
        #expect(cache.messagesBuilt == 1_000)
        _ = cache.items(messages, timeZone: .gmt)
        #expect(cache.messagesBuilt == 0, "nothing changed, nothing built")
        for token in ["Hal", "lo", " Welt"] {
            messages[999].text += token
            messages[999].state = .streaming
            #expect(cache.items(messages, timeZone: .gmt) == ChatTimelineAdapter.items(messages, timeZone: .gmt))
            #expect(cache.messagesBuilt == 1)
        }
        messages.append(message(1_000, at: messages[999].createdAt + 2 * Self.day))
        #expect(cache.items(messages, timeZone: .gmt) == ChatTimelineAdapter.items(messages, timeZone: .gmt))
        #expect(cache.messagesBuilt == 1, "a new message on a new day: its separator and itself")
    }

    @Test func everyKindOfEditGivesTheAdaptersAnswer() {
        let random = SeededRandomSource(seed: 41)
        var messages: [ChatTranscriptMessage] = []
        var cache = ChatTimelineCache()
        var next = 0
        var time: Int64 = 1_800_000_000_000
        let zones = [TimeZone.gmt, TimeZone(identifier: "Asia/Shanghai")!, TimeZone(identifier: "Europe/Berlin")!]
        var zone = zones[0]
        for step in 0..<2_000 {
            switch random.next(below: 8) {
            case 0, 1:
                time += Int64(random.next(below: 30)) * 3_600_000
                messages.append(message(next, at: time))
                next += 1
            case 2 where !messages.isEmpty:
                messages[messages.count - 1].text += "·"
            case 3 where !messages.isEmpty:
                let index = Int(random.next(below: UInt64(messages.count)))
                messages[index].state = [.stopped, .failed(reason: "offline"), .complete][step % 3]
            case 4 where !messages.isEmpty:
                messages.remove(at: Int(random.next(below: UInt64(messages.count))))
            case 5:
                messages.insert(message(next, at: (messages.first?.createdAt ?? time) - Self.day), at: 0)
                next += 1
            case 6:
                zone = zones[Int(random.next(below: UInt64(zones.count)))]
            default:
                break
            }
            let error: String? = step % 5 == 0 ? "The server is unreachable." : nil
            let expected = ChatTimelineAdapter.items(messages, lastError: error, timeZone: zone)
            #expect(cache.items(messages, lastError: error, timeZone: zone) == expected, "step \(step)")
        }
    }

    @Test func aNewZoneWithNoMessagesLeftLeavesNoEntries() throws {
        var cache = ChatTimelineCache()
        let messages = [message(0, at: 1_800_000_000_000), message(1, at: 1_800_000_000_000 + Self.day)]
        #expect(!cache.items(messages, timeZone: .gmt).isEmpty)
        let shanghai = try #require(TimeZone(identifier: "Asia/Shanghai"))
        #expect(cache.items([], timeZone: shanghai) == ChatTimelineAdapter.items([], timeZone: shanghai))
        #expect(cache.items(messages, timeZone: shanghai) == ChatTimelineAdapter.items(messages, timeZone: shanghai))
    }
}
