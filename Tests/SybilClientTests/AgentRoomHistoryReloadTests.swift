import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// The reload of a history the server no longer has, with its page and read position held
/// until the test lets them go: what arrives meanwhile, and what the room shows when it swaps.
@MainActor
@Suite("Agent room reloading a lost history", .timeLimit(.minutes(2)))
struct AgentRoomHistoryReloadTests {
    typealias F = AgentRoomFixtures

    let clock = ManualClock()
    let sockets = ScriptedAgentSockets()

    private func model(_ room: GatedRoomAPI) throws -> AgentRoomModel {
        try F.model(api: room, sockets: sockets, clock: clock)
    }

    /// A message of the server that came back: its cursors start again from the beginning.
    private static func fresh(_ sequence: Int) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "new-\(sequence)", cursor: F.cursor(sequence), role: .assistant, visibility: .public,
            text: "new \(sequence)", createdAt: 1_791_968_400_000 + Int64(sequence) * 60_000)
    }

    /// More stream messages arrive during the reload than the room holds: the ones past the
    /// limit are dropped, so the room must not let the open connection carry its replay point
    /// past them; the next connection replays them.
    @Test func messagesDroppedWhileTheHistoryReloadsAreReplayedNotSkipped() async throws {
        let room = GatedRoomAPI((1...3).map { F.message($0) })
        let model = try model(room)
        await model.start()
        let first = await sockets.connection(1)
        // A server without 4410 came back empty and sends its messages at cursors the room holds.
        room.restart(with: [Self.fresh(1), Self.fresh(2)], gatePages: true)
        first.send(.message(Self.fresh(2)))
        await waitForRoom("the reload's page") { room.pendingPages == 1 }
        let last = 4_096 + 10
        var sent = 2
        while sent < last {
            // In steps the stream's own buffer (4,096 updates) takes whole.
            let end = min(sent + 256, last)
            for sequence in (sent + 1)...end { first.send(.message(Self.fresh(sequence))) }
            sent = end
            let handled = sent
            await waitForRoom("the messages held") { model.updatesHandled == handled }
        }
        room.releasePages()
        await waitForRoom("the server's history") { model.history.messages.first?.messageId == "new-1" }
        #expect(model.history.lastMergedCursor == F.cursor(4_097), "the held messages, up to the limit")
        // The open connection goes on after the dropped ones, then ends.
        first.send(.message(Self.fresh(last + 1)))
        first.lose()
        await waitForRoom("the next connection") {
            if case .reconnecting = model.connection { return true }
            return sockets.opened.count == 2
        }
        clock.advance(by: .seconds(2))
        let second = await sockets.connection(2)
        #expect(second.after == "c-000004097", "replays what was dropped")
        for sequence in 4_098...(last + 1) { second.send(.message(Self.fresh(sequence))) }
        await waitForRoom("the replay") { model.history.lastMergedCursor == F.cursor(last + 1) }
        let missing = (1...(last + 1)).filter { model.history.message(withId: "new-\($0)") == nil }
        #expect(missing.isEmpty, "no hole: \(missing.prefix(5))")
        #expect(model.history.messages.count == last + 1)
        await model.stop()
    }

    /// The read position of the server that came back is part of the swap: the page's replies
    /// the server says were read never show as unread, not even until it is loaded.
    @Test func theSwapCarriesTheNewServersReadPositionSoReadRepliesNeverCountAsUnread() async throws {
        let room = GatedRoomAPI((1...3).map { F.message($0) }, readCursor: F.cursor(3))
        let model = try model(room)
        await model.start()
        #expect(model.unreadCount == 0)
        let first = await sockets.connection(1)
        room.restart(with: (1...30).map { Self.fresh($0) }, readCursor: F.cursor(30), gateRead: true)
        first.close(with: AgentStreamClose.historyLost)
        await waitForRoom("the new server asked for its read position") { room.pendingReads == 1 }
        if model.history.messages.first?.messageId == "new-1" {
            #expect(model.unreadCount == 0, "30 replies shown unread while the server says none are")
        }
        room.releaseReads()
        await waitForRoom("the server's history") {
            model.history.messages.first?.messageId == "new-1" && model.readState?.readCursor == F.cursor(30)
        }
        #expect(model.unreadCount == 0)
        #expect(model.history.messages.count == 30)
        await model.stop()
    }

    /// While the history reloads, the transcript shown is the one the server no longer has:
    /// reaching its bottom must not post its cursor, which the server may hold for one of its
    /// own messages nobody saw.
    @Test func noReadPositionIsPostedFromTheLostHistoryWhileItReloads() async throws {
        let room = GatedRoomAPI((1...3).map { F.message($0) })
        let model = try model(room)
        model.isSelected = true
        await model.start()
        let first = await sockets.connection(1)
        room.restart(with: (1...5).map { Self.fresh($0) }, gatePages: true)
        first.send(.message(Self.fresh(2)))
        await waitForRoom("the reload's page") { room.pendingPages == 1 }
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        room.releasePages()
        await waitForRoom("the server's history") { model.history.messages.first?.messageId == "new-1" }
        #expect(room.markReads.isEmpty, "posted \(room.markReads) from the lost history")
        // The server's own history, once it reaches the bottom, is acknowledged as ever.
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        await waitForRoom("the read") { model.readState?.readCursor == F.cursor(5) }
        #expect(room.markReads == [F.cursor(5)])
        await model.stop()
    }
}

/// A room API whose newest pages and read states can be held until released.
final class GatedRoomAPI: AgentRoomAPI {
    private struct State {
        var messages: [AgentRoomMessage]
        var readCursor: AgentCursor?
        var gatePages = false
        var gateRead = false
        var pageWaiters: [CheckedContinuation<Void, Never>] = []
        var readWaiters: [CheckedContinuation<Void, Never>] = []
        var newestPages = 0
        var markReads: [AgentCursor] = []
    }

    private let state: Locked<State>

    init(_ messages: [AgentRoomMessage], readCursor: AgentCursor? = nil) {
        state = Locked(State(messages: messages, readCursor: readCursor))
    }

    func restart(
        with messages: [AgentRoomMessage], readCursor: AgentCursor? = nil, gatePages: Bool = false,
        gateRead: Bool = false
    ) {
        state.withLock {
            $0.messages = messages
            $0.readCursor = readCursor
            $0.gatePages = gatePages
            $0.gateRead = gateRead
        }
    }

    var pendingPages: Int { state.withLock { $0.pageWaiters.count } }
    var pendingReads: Int { state.withLock { $0.readWaiters.count } }
    var newestPages: Int { state.withLock { $0.newestPages } }

    func releasePages() {
        let waiters = state.withLock { state in
            defer {
                state.pageWaiters = []
                state.gatePages = false
            }
            return state.pageWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func releaseReads() {
        let waiters = state.withLock { state in
            defer {
                state.readWaiters = []
                state.gateRead = false
            }
            return state.readWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { AgentRoomFixtures.descriptor() }

    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        let page = state.withLock { state in
            if after == nil, before == nil { state.newestPages += 1 }
            let all = state.messages
            let page: [AgentRoomMessage]
            if let before {
                page = Array(all.filter { $0.cursor < before }.suffix(limit))
            } else if let after {
                page = Array(all.filter { after < $0.cursor }.prefix(limit))
            } else {
                page = Array(all.suffix(limit))
            }
            return AgentRoomPage(
                messages: page, nextCursor: page.last?.cursor ?? after,
                hasMoreBefore: page.first.map { first in all.contains { $0.cursor < first.cursor } } ?? false)
        }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state in
                guard state.gatePages, after == nil, before == nil else { return false }
                state.pageWaiters.append(waiter)
                return true
            }
            if !wait { waiter.resume() }
        }
        return page
    }

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        throw .transport("unexpected call")
    }

    func readState() async throws(AgentRoomError) -> AgentReadState {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state in
                guard state.gateRead else { return false }
                state.readWaiters.append(waiter)
                return true
            }
            if !wait { waiter.resume() }
        }
        return state.withLock { state in
            AgentReadState(
                readCursor: state.readCursor,
                unread: state.messages.filter { message in
                    message.countsAsUnread && state.readCursor.map { $0 < message.cursor } ?? true
                }.count)
        }
    }

    /// Every read position posted, in order.
    var markReads: [AgentCursor] { state.withLock { $0.markReads } }

    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        state.withLock { state in
            state.markReads.append(cursor)
            if state.messages.contains(where: { $0.cursor == cursor }), state.readCursor.map({ $0 < cursor }) ?? true {
                state.readCursor = cursor
            }
        }
        return try await readState()
    }

    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
        throw .transport("unexpected call")
    }

    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        throw .transport("unexpected call")
    }
}
