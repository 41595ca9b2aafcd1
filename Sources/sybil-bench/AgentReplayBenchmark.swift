import Foundation
import SybilCore
import SybilTimeline
import SybilWire

// MARK: Agent room replay through the merged history vs decoding the frames alone

/// `c-000000042`, the reference server's cursor for sequence 42.
private func replayCursor(_ sequence: Int) -> AgentCursor {
    let digits = String(sequence)
    return AgentCursor("c-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits)!
}

/// Message `sequence` of a busy room: a user message, a hidden tool call and a reply in turn,
/// about 80 characters of text each, one second apart.
private func replayMessage(_ sequence: Int) -> AgentRoomMessage {
    let role: AgentRoomMessage.Role = [.user, .tool, .assistant][sequence % 3]
    return AgentRoomMessage(
        messageId: "msg-\(sequence)", cursor: replayCursor(sequence),
        requestId: role == .user ? "req-\(sequence)" : nil, role: role,
        visibility: role == .tool ? .internal : .public,
        text: "Message \(sequence): the linker step failed twice; retrying with the cached objects removed.",
        createdAt: 1_800_000_000_000 + Int64(sequence) * 1_000)
}

/// Replays `frames` into a history that already holds the newest page `page`, decoding each
/// frame whole first, as `AgentRoomStream` and `AgentRoomModel` do.
private func replay(_ frames: ArraySlice<String>, after page: AgentRoomPage) -> AgentRoomHistory {
    var history = AgentRoomHistory()
    _ = history.applyNewestPage(page)
    for frame in frames {
        guard case .message(let message) = try? AgentStreamEvent.decode(frame: frame) else {
            preconditionFailure("every benchmark frame is a message")
        }
        _ = history.applyLive(message)
    }
    return history
}

/// The same replay with what `AgentRoomModel.historyChanged` does after each merged message on
/// top: the transcript's rows rebuilt from the history (`AgentTranscript.update(from:)`).
private func replayThroughTranscript(_ frames: ArraySlice<String>, after page: AgentRoomPage) -> AgentTranscript {
    var history = AgentRoomHistory()
    var transcript = AgentTranscript(timeZone: TimeZone(identifier: "UTC")!)
    _ = history.applyNewestPage(page)
    transcript.update(from: history)
    for frame in frames {
        guard case .message(let message) = try? AgentStreamEvent.decode(frame: frame) else {
            preconditionFailure("every benchmark frame is a message")
        }
        if history.applyLive(message).changedMessages { transcript.update(from: history) }
    }
    return transcript
}

/// `agent-replay`'s second line: the replay with the room model's transcript rebuilt after each
/// message, at 1,000, 2,000 and 4,000 events (the rows shown grow with every live message, so
/// this shows whether the model's per-event cost stays level).
private func benchmarkAgentTranscriptReplay(frames: [String], page: AgentRoomPage) {
    var perEvent: [Double] = []
    for count in [1_000, 2_000, 4_000].map({ scaled($0) }) where count <= frames.count {
        let seconds = best { blackHole(replayThroughTranscript(frames[..<count], after: page)) }
        perEvent.append(seconds / Double(count) * 1e6)
    }
    guard let first = perEvent.first, let last = perEvent.last else { return }
    let held = replayThroughTranscript(frames[..<min(scaled(4_000), frames.count)], after: page)
    print(
        "  with the transcript rebuilt after each message (AgentRoomModel.historyChanged): µs/event at "
            + "1,000 / 2,000 / 4,000 events: \(perEvent.map { format($0, 1) }.joined(separator: " / ")) "
            + "(\(held.rows.count) rows at the end; 4,000/1,000 per event \(format(last / first, 1))x, level is linear)"
    )
}

/// `agent-replay`: a room history of `events` stream frames replayed from a cursor (the newest
/// page of 50 is merged first, the frames follow its `nextCursor`) through
/// `AgentStreamEvent.decode(frame:)` and `AgentRoomHistory.applyLive`. Reports the time per
/// event against decoding the same frames alone (the baseline, same run), the time per event
/// at a quarter, half and all of the frames (linear when they stay level), and the peak
/// resident memory the held history adds per event (goal ≤ 2 KiB).
func benchmarkAgentReplay(events: Int = scaled(100_000, atLeast: 4)) {
    let pageSize = 50
    let page = AgentRoomPage(
        messages: (1...pageSize).map(replayMessage), nextCursor: replayCursor(pageSize), hasMoreBefore: false)
    let writer = JSONWriter()
    let frames = ((pageSize + 1)...(pageSize + events)).map {
        writer.string(from: AgentStreamEvent.message(replayMessage($0)).jsonValue)
    }
    let frameBytes = frames.reduce(0) { $0 + $1.utf8.count }

    // Memory first, before the timed runs leave freed pages behind for the allocator to reuse.
    resetPeakMemory()
    let residentBefore = peakResidentBytes()
    let held = replay(frames[...], after: page)
    let residentPeak = peakResidentBytes()
    precondition(held.messages.count == pageSize + events, "every frame merged once")
    precondition(held.lastMergedCursor == replayCursor(pageSize + events), "the replay point is the last frame")
    blackHole(held)
    let bytesPerEvent = Double(residentPeak - residentBefore) / Double(events)

    let decodeSeconds = best {
        for frame in frames { blackHole(try? AgentStreamEvent.decode(frame: frame)) }
    }
    var perEvent: [Double] = []
    var replaySeconds = 0.0
    for fraction in [4, 2, 1] {
        let count = events / fraction
        let seconds = best { blackHole(replay(frames[..<count], after: page)) }
        perEvent.append(seconds / Double(count) * 1e6)
        if fraction == 1 { replaySeconds = seconds }
    }
    let levels = perEvent.map { format($0, 2) }.joined(separator: " / ")
    print(
        "agent-replay \(events) events (\(format(Double(frameBytes) / 1_048_576, 1)) MiB of frames) from c-\(pageSize): "
            + "\(format(replaySeconds * 1000, 1)) ms (\(format(replaySeconds / Double(events) * 1e6, 2)) µs/event), "
            + "decoding alone \(format(decodeSeconds * 1000, 1)) ms, ratio \(format(replaySeconds / decodeSeconds, 2))x; "
            + "µs/event at 25/50/100 %: \(levels) (goal: level, linear); "
            + "peak resident +\(format(Double(residentPeak - residentBefore) / 1_048_576, 1)) MiB = "
            + "\(format(bytesPerEvent, 0)) bytes/event held (goal <= 2048)")
    benchmarkAgentTranscriptReplay(frames: frames, page: page)
}
