import Foundation
import SybilClient
import SybilCore
import SybilTUI

// `chat-items`: the terminal app's chat entries per frame while a reply streams at the end of
// a 10,000-message chat (a few characters more each frame). The baseline builds every entry
// again, as the app did each frame (`ChatTimelineAdapter.items`: a calendar lookup and a hash
// of every message's text); `ChatTimelineCache` reuses the entries before the reply. A
// 1,000-message chat shows whether the cached cost grows with the chat's length.

private func chat(_ count: Int) -> [ChatTranscriptMessage] {
    let random = SeededRandomSource(seed: 23)
    let start: Int64 = 1_800_000_000_000
    return (0..<count).map { index in
        let words = (0..<(20 + Int(random.next(below: 200)))).map { _ in "wort\(random.next(below: 1_000))" }
        return ChatTranscriptMessage(
            id: "m\(index)", role: index % 2 == 0 ? .user : .assistant,
            text: words.joined(separator: " "), createdAt: start + Int64(index) * 600_000)
    }
}

/// Seconds per frame over `frames` frames of a reply growing at the end of `messages`.
private func perFrame(_ messages: [ChatTranscriptMessage], frames: Int, build: ([ChatTranscriptMessage]) -> Int)
    -> Double
{
    var streaming = messages
    streaming[streaming.count - 1].state = .streaming
    let seconds = best {
        var total = 0
        for frame in 0..<frames {
            streaming[streaming.count - 1].text += " token\(frame)"
            total &+= build(streaming)
        }
        blackHole(total)
    }
    return seconds / Double(frames)
}

func benchmarkChatItems() {
    let frames = scaled(100)
    let zone = TimeZone.gmt
    let large = chat(scaled(10_000))
    let small = chat(scaled(1_000))
    let rebuilt = perFrame(large, frames: frames) { ChatTimelineAdapter.items($0, timeZone: zone).count }
    var cache = ChatTimelineCache()
    _ = cache.items(large, timeZone: zone)
    let cached = perFrame(large, frames: frames) { cache.items($0, timeZone: zone).count }
    var smallCache = ChatTimelineCache()
    _ = smallCache.items(small, timeZone: zone)
    let cachedSmall = perFrame(small, frames: frames) { smallCache.items($0, timeZone: zone).count }
    let ms = { (seconds: Double) in format(seconds * 1000, 3) }
    print(
        "chat-items, a reply streaming at the end of 10,000 messages: rebuilt every frame \(ms(rebuilt)) ms, "
            + "cached \(ms(cached)) ms (ratio \(format(rebuilt / cached)) x faster); "
            + "cached at 1,000 messages \(ms(cachedSmall)) ms (10,000 / 1,000: \(format(cached / cachedSmall)) x)")
}
