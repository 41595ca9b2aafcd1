import Foundation
import Observation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTimeline
import SybilWire

/// The Agent room (SPEC §6) as a front end draws it: the transcript's rows, the unread count,
/// the agent's activity, a room error a person can act on, whether attachments are offered
/// and with which limits.
///
/// ``start()`` loads the descriptor, the newest page and the shared read position, then
/// subscribes to the stream from the last merged cursor. The subscription stays while other
/// chats are selected: ``isSelected`` changes only the unread badge and whether the shared
/// read is acknowledged. ``foreground()`` and ``networkRecovered()`` reconnect and replay from
/// the last merged cursor. Every task it starts is held, and ``stop()`` cancels and awaits
/// them all. Every merged message goes to ``onMessageMerged`` (the outbox confirms its sends
/// by their canonical echo).
///
/// A server whose history no longer reaches the last merged cursor (restarted without its
/// history, restored from an older copy) is followed afresh: told so by the stream's close
/// `4410`, or seeing the stream send a message the merged history does not hold at its cursor,
/// a cursor from the oldest loaded message's to the last merged one (a range with no hole), the
/// room loads the newest page and replaces its history, transcript, read position
/// and unread count with the server's in one step, says so in ``roomError`` until a new message
/// arrives, and replays from that page's cursor. ``onHistoryReset`` tells the outbox sender,
/// which stops comparing cursors across the two histories: what the person queued is sent and
/// confirmed by its echo as before, and what the old server acknowledged without an echo in
/// the new history goes back to the person with Retry. Reconnects still wait the stream's
/// backoff, and a connection starts at most one such reset.
@MainActor
@Observable
public final class AgentRoomModel {
    /// The stream's state, as a status line shows it.
    public enum Connection: Sendable, Hashable {
        /// Not started, or stopped.
        case idle
        /// Loading and connecting.
        case connecting
        /// Connected: updates arrive live.
        case connected
        /// Dropped; the next attempt starts after `retryIn`.
        case reconnecting(reason: String, retryIn: Duration)
    }

    /// What the agent is doing.
    public enum Activity: Sendable, Hashable {
        /// Nothing (or nothing known since the last connection).
        case idle
        /// Working, with a short detail ("Reading build.log").
        case working(detail: String)
    }

    // MARK: Published state

    /// The transcript's rows: visible messages and day separators, oldest first (kept in
    /// place by the transcript, so a live message adds its rows without copying the others).
    public var rows: [AgentTranscriptRow] { transcript.rows }
    /// Public assistant replies after the shared read position.
    public private(set) var unreadCount = 0
    /// The agent's activity.
    public private(set) var activity = Activity.idle
    /// What went wrong, in a sentence that says what happens next or what to do; `nil` when
    /// nothing is wrong.
    public private(set) var roomError: String?
    /// The stream's state.
    public private(set) var connection = Connection.idle
    /// The room's descriptor, once loaded.
    public private(set) var descriptor: AgentRoomDescriptor?
    /// Whether files and photos are offered: the descriptor advertises attachments v1 and no
    /// 503 / 4503 said the open proxy is down since (a reconnect checks again).
    public private(set) var attachmentsAvailable = false
    /// The shared read position, as the server last said (never moved backwards).
    public private(set) var readState: AgentReadState?
    /// Whether older messages exist on the server beyond the merged history.
    public private(set) var hasMoreBefore = false
    /// Whether an older page is being loaded.
    public private(set) var isLoadingOlder = false
    /// Connections the stream opened (a status line or a test can wait on it).
    public private(set) var connectionsOpened = 0
    /// Stream updates handled so far.
    public private(set) var updatesHandled = 0
    /// The merged history: every message with its cursor, hidden ones included.
    public private(set) var history = AgentRoomHistory()

    /// Whether the room is the selected chat. Only the badge and the shared read depend on it;
    /// the room stays subscribed either way.
    public var isSelected = false {
        didSet {
            guard isSelected != oldValue else { return }
            markerTaken = false
            unreadMarkerMessageId = nil
            takeUnreadMarker()
            feedGate(.selected(isSelected))
        }
    }

    /// The message the "new" marker sits above while the room is selected: the first unread
    /// public assistant reply as of the moment it was selected (or, selected before the read
    /// position was known, as of its arrival). Reading does not move it; leaving the room
    /// clears it.
    public private(set) var unreadMarkerMessageId: String?
    @ObservationIgnored private var markerTaken = false

    /// Called with every message merged for the first time or changed by the server, from
    /// pages and the stream alike (the outbox confirms sends by their canonical echo).
    @ObservationIgnored public var onMessageMerged: (@MainActor (AgentRoomMessage) -> Void)?

    /// Called with the new history's messages when the room replaced the history of a server
    /// that lost it, before they go to ``onMessageMerged``: its cursors are another series, so
    /// whatever compared cursors with the old one (the outbox sender) starts over.
    @ObservationIgnored public var onHistoryReset: (@MainActor ([AgentRoomMessage]) -> Void)?

    /// The unread count a sidebar badge shows: none while the room is selected.
    public var badgeCount: Int { isSelected ? 0 : unreadCount }

    /// The descriptor's attachment limits (clamped to v1), when it advertises attachments.
    public var attachmentLimits: AgentAttachmentLimits? { descriptor?.attachments?.limits }

    /// The room's REST surface (the outbox and the attachments use the same one).
    public let api: any AgentRoomAPI

    // MARK: Private state

    private enum ErrorOrigin {
        case descriptor, page, stream, older, history
    }

    /// Stream messages held while the history is replaced, at most this many.
    private static let heldDuringResetLimit = 4_096

    @ObservationIgnored private let stream: any AgentRoomStreamSource
    @ObservationIgnored private let pageSize: Int
    private var transcript: AgentTranscript
    @ObservationIgnored private var gate = SharedReadGate()
    @ObservationIgnored private var errorOrigin: ErrorOrigin?
    @ObservationIgnored private var attachmentsSuspended = false
    @ObservationIgnored private var isStarted = false
    @ObservationIgnored private var streamTask: Task<Void, Never>?
    @ObservationIgnored private var work: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextWorkId = 0
    /// The replacement of a history the server no longer has, while it runs.
    @ObservationIgnored private var resetTask: Task<Void, Never>?
    /// Stream messages that arrived while ``resetTask`` ran; merged into the new history.
    @ObservationIgnored private var heldDuringReset: [AgentRoomMessage] = []
    @ObservationIgnored private var heldOverflowed = false
    /// Whether the open connection started a reset already (one per connection).
    @ObservationIgnored private var resetThisConnection = false
    /// A reset failed: what the open connection sends belongs to the history the room could
    /// not load, so none of it is merged; the stream is asked to connect again (after its
    /// backoff), replaying from the room's cursor.
    @ObservationIgnored private var discardingThisConnection = false
    /// The socket stream's feed of the current subscription (to ask it to reconnect).
    @ObservationIgnored private var feed: AgentRoomUpdateFeed?

    /// A room over `api` and `stream`; days follow `timeZone`, pages and window steps hold
    /// `pageSize` messages (1…200).
    public init(api: any AgentRoomAPI, stream: any AgentRoomStreamSource, timeZone: TimeZone, pageSize: Int = 50) {
        precondition((1...200).contains(pageSize), "a page holds 1…200 messages")
        self.api = api
        self.stream = stream
        self.pageSize = pageSize
        transcript = AgentTranscript(timeZone: timeZone, pageSize: pageSize)
    }

    /// The room at `base` with the token from `tokens`: REST through `http` (give one that
    /// does not follow redirects), the stream through `connector` (sockets by default), waits
    /// on `clock`, jitter and boundaries from `random`.
    public convenience init<C: Clock>(
        base: AgentAPIBase, tokens: TokenProvider, http: any HTTPClient,
        connector: (any AgentRoomStreamConnector)? = nil,
        clock: C, random: any RandomSource, timeZone: TimeZone, pageSize: Int = 50,
        policy: ReconnectPolicy = ReconnectPolicy()
    ) where C.Duration == Duration {
        self.init(
            api: AgentRoomHTTPClient(base: base, http: http, tokens: tokens, random: random),
            stream: AgentRoomStream(
                base: base, tokens: tokens,
                connector: connector ?? AgentRoomStreamSocketConnector(clock: clock, random: random),
                clock: clock, random: random, policy: policy),
            timeZone: timeZone, pageSize: pageSize)
    }

    // MARK: Lifecycle

    /// Loads the descriptor, the newest page and the shared read position, then subscribes to
    /// the stream from the last merged cursor. Returns once subscribed (a failed load leaves a
    /// room error and subscribes all the same: the replay fills the history). Does nothing when
    /// already started.
    public func start() async {
        guard !isStarted else { return }
        isStarted = true
        connection = .connecting
        let loading = own { [weak self] in
            guard let self else { return }
            await loadDescriptor()
            await loadNewestPage()
            await loadReadState()
            guard isStarted, !Task.isCancelled else { return }
            subscribe()
        }
        await loading.value
    }

    /// Ends the subscription and every load and post, and waits until all of them ended.
    public func stop() async {
        isStarted = false
        streamTask = nil
        resetTask = nil
        heldDuringReset = []
        while !work.isEmpty {
            let tasks = Array(work.values)
            work.removeAll()
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
        connection = .idle
        activity = .idle
    }

    /// The app returned to the foreground: reconnect at once and replay from the last merged
    /// cursor; read the shared read position again (other devices may have moved it).
    public func foreground() {
        recover()
    }

    /// The network came back: reconnect at once and replay from the last merged cursor.
    public func networkRecovered() {
        recover()
    }

    /// An upload or a call answered 503 `open_proxy_unavailable`: attachments are not offered
    /// until a reconnect finds the descriptor supports them again. Drafts and outbox entries
    /// keep their attachments.
    public func attachmentsBecameUnavailable() {
        attachmentsSuspended = true
        attachmentsAvailable = false
    }

    // MARK: Reading

    /// The reader reached the top of the transcript: shows more of the merged history, loading
    /// older pages until a page brings visible messages or the room has no more. A page that
    /// brings nothing older while the room says there is more ends the load with a room error
    /// (asking again at once would get the same answer).
    public func loadOlder() async {
        guard isStarted, !isLoadingOlder else { return }
        if showOlder() { return }
        guard history.hasMoreBefore else { return }
        isLoadingOlder = true
        let loading = own { [weak self] in
            guard let self else { return }
            while !Task.isCancelled, history.hasMoreBefore, let oldest = history.oldestCursor {
                let page: AgentRoomPage
                do {
                    page = try await api.messages(after: nil, before: oldest, limit: pageSize)
                } catch {
                    if !Task.isCancelled {
                        setError(
                            "\(Self.sentence(String(describing: error))) Scroll to the top again to retry.",
                            from: .older)
                    }
                    break
                }
                clearError(from: .older)
                guard let change = history.applyOlderPage(page, before: oldest) else { break }
                historyChanged(change)
                if showOlder() { break }
                if history.hasMoreBefore, history.oldestCursor == oldest {
                    // More was promised but nothing older came (an empty page, or only messages
                    // merged already at other cursors): the same question gets the same answer.
                    setError(
                        "The room said older messages exist but sent none. Scroll to the top again to retry.",
                        from: .older)
                    break
                }
            }
        }
        await loading.value
        isLoadingOlder = false
    }

    /// The row index of `id` (a scroll anchor's message, or a day), when it is shown.
    public func rowIndex(of id: AgentTranscriptRow.ID) -> Int? { transcript.rowIndex(of: id) }

    /// The scroll anchor for the row at `index`: a visible message id (for a day separator,
    /// the message below it), which keeps its place across prepends and hidden messages.
    public func anchor(forRowAt index: Int) -> String? { transcript.anchor(forRowAt: index) }

    /// The visible transcript reached its bottom (a step towards the shared read).
    public func viewportReachedBottom() { feedGate(.reachedBottom) }

    /// The reader scrolled away from the bottom.
    public func viewportLeftBottom() { feedGate(.leftBottom) }

    /// The entrance animation of the newest rows finished (a step towards the shared read).
    public func entranceAnimationFinished() { feedGate(.entranceAnimationFinished) }

    // MARK: Loading

    private func loadDescriptor() async {
        do {
            let loaded = try await api.descriptor()
            descriptor = loaded
            attachmentsSuspended = false
            attachmentsAvailable = loaded.attachments != nil
            clearError(from: .descriptor)
        } catch {
            guard !Task.isCancelled else { return }
            if error.isAttachmentsUnavailable { attachmentsBecameUnavailable() }
            setError(
                "\(Self.sentence(error.description)) Attachments stay off until the room reconnects.", from: .descriptor
            )
        }
    }

    private func loadNewestPage() async {
        do {
            let page = try await api.messages(after: nil, before: nil, limit: pageSize)
            historyChanged(history.applyNewestPage(page))
            clearError(from: .page)
        } catch {
            guard !Task.isCancelled else { return }
            setError("\(Self.sentence(error.description)) The room fills in when it reconnects.", from: .page)
        }
    }

    private func loadReadState() async {
        guard let state = try? await api.readState() else { return }
        applyReadState(state)
    }

    private func recover() {
        guard isStarted else { return }
        own { [weak self] in
            guard let self else { return }
            await loadReadState()
        }
        subscribe()
    }

    // MARK: The stream

    /// Subscribes afresh (ending the previous subscription first), replaying from the last
    /// merged cursor as each connection opens.
    private func subscribe() {
        guard isStarted else { return }
        let previous = streamTask
        previous?.cancel()
        activity = .idle
        connection = .connecting
        let replayFrom: @Sendable () async -> AgentCursor? = { @MainActor [weak self] in
            // A history being replaced decides where the next connection replays from.
            if let reset = self?.resetTask { await reset.value }
            return self?.history.lastMergedCursor
        }
        // The socket stream's updates come as a feed that resumes this task on the main actor
        // straight from the I/O thread (an `AsyncStream` resumes it on the cooperative pool
        // first, one more thread hand-off for every frame).
        feed = nil
        if let source = stream as? any AgentRoomFeedSource {
            let feed = source.feed(replayFrom: replayFrom)
            self.feed = feed
            streamTask = own { [weak self] in
                await previous?.value
                var handled = 0
                while let update = await feed.next() {
                    guard let self, !Task.isCancelled else { return }
                    handle(update)
                    // Queued updates are taken without suspending: a long burst (a replay) lets
                    // the main actor's other work run every 64 updates.
                    handled += 1
                    if handled % 64 == 0 { await Task.yield() }
                }
            }
            return
        }
        let updates = stream.updates(replayFrom: replayFrom)
        streamTask = own { [weak self] in
            await previous?.value
            for await update in updates {
                guard let self, !Task.isCancelled else { return }
                handle(update)
            }
        }
    }

    private func handle(_ update: AgentRoomStreamUpdate) {
        switch update {
        case .connected:
            connection = .connected
            connectionsOpened += 1
            resetThisConnection = false
            discardingThisConnection = false
            if attachmentsSuspended || descriptor == nil {
                own { [weak self] in await self?.loadDescriptor() }
            }
        case .event(let event):
            clearError(from: .stream)
            clearError(from: .page)
            switch event {
            case .message(let message):
                mergeLive(message)
            case .activity(let state, let detail):
                activity = state == .working ? .working(detail: detail) : .idle
            case .read(let state):
                applyReadState(state)
            }
        case .disconnected(let end, let retryIn):
            connection = .reconnecting(reason: end.description, retryIn: retryIn)
            // Activity is not replayed: what was shown may have ended while disconnected.
            activity = .idle
            switch end {
            case .attachmentsUnavailable:
                attachmentsBecameUnavailable()
            case .historyLost(let after):
                // Only for the cursor the room still replays from: a close for an older one (a
                // reset already done) or for none asks for nothing; the backoff applies as ever.
                if let after, after == history.lastMergedCursor { startHistoryReset() }
            case .authenticationFailed where retryIn > .zero:
                setError(end.description, from: .stream)
            case .malformedFrame:
                setError(
                    "\(Self.sentence(end.description)) The room keeps what it has and tries again in \(Self.seconds(retryIn)).",
                    from: .stream)
            case .authenticationFailed, .closed, .fellBehind, .serverBusy, .transport, .reconnectRequested:
                break
            }
        }
        updatesHandled += 1
    }

    // MARK: A server that lost the history

    /// Merges a stream message, unless it shows the server's history is another than the one
    /// merged: a message at a cursor inside the merged range (from the oldest message to the
    /// last merged cursor, which has no hole) that the history does not hold there. Such a
    /// message starts a reset (once per connection) and waits for the new history, as do all
    /// messages while a reset runs.
    private func mergeLive(_ message: AgentRoomMessage) {
        // After a failed reset the next connection replays it (the room's cursor did not move).
        if discardingThisConnection { return }
        if resetTask != nil {
            hold(message)
            return
        }
        if !resetThisConnection, let oldest = history.oldestCursor, let last = history.lastMergedCursor,
            oldest <= message.cursor, message.cursor <= last,
            history.message(withId: message.messageId)?.cursor != message.cursor
        {
            resetThisConnection = true
            startHistoryReset()
            hold(message)
            return
        }
        let change = history.applyLive(message)
        if !change.inserted.isEmpty { clearError(from: .history) }
        historyChanged(change)
    }

    private func hold(_ message: AgentRoomMessage) {
        guard heldDuringReset.count < Self.heldDuringResetLimit else {
            heldOverflowed = true
            return
        }
        heldDuringReset.append(message)
    }

    /// Replaces the history with the server's newest page (a task of its own; the next
    /// connection waits for it).
    private func startHistoryReset() {
        guard isStarted, resetTask == nil, !discardingThisConnection else { return }
        heldDuringReset = []
        heldOverflowed = false
        resetTask = own { [weak self] in
            await self?.resetHistory()
            self?.resetTask = nil
        }
    }

    private func resetHistory() async {
        let page: AgentRoomPage
        do {
            page = try await api.messages(after: nil, before: nil, limit: pageSize)
        } catch {
            guard !Task.isCancelled else { return }
            // The room keeps what it shows. What arrived meanwhile, and what the open connection
            // sends from now on, belongs to the server's history: merged into the one shown it
            // would mix two timelines, so it is dropped (the room's cursor does not move) and the
            // stream connects again after its backoff; that connection replays it, or its close
            // (4410) or first clashing message starts the reset again.
            heldDuringReset = []
            heldOverflowed = false
            if connection == .connected {
                discardingThisConnection = true
                feed?.requestReconnect()
            }
            setError(
                "The Agent room's history no longer matches this app's and could not be loaded again: "
                    + "\(Self.sentence(error.description)) The room tries again when it reconnects.",
                from: .history)
            return
        }
        // The read position comes with the page, so the swap never shows the page's replies
        // as unread while the server says they were read (nor a badge that stays so when the
        // read position cannot be loaded). Without it, it is asked again after the swap.
        let read = try? await api.readState()
        guard !Task.isCancelled, isStarted else { return }
        var fresh = AgentRoomHistory()
        _ = fresh.applyNewestPage(page)
        // What the stream sent meanwhile, except anything below the page (which would leave a
        // hole between it and the page).
        _ = fresh.applyLive(heldDuringReset.filter { held in fresh.oldestCursor.map { $0 <= held.cursor } ?? true })
        heldDuringReset = []
        // One step on the main actor: the old rows, read position, marker and unread count
        // leave together and the server's come in their place.
        history = fresh
        transcript = AgentTranscript(timeZone: transcript.timeZone, pageSize: pageSize)
        transcript.update(from: history)
        hasMoreBefore = history.hasMoreBefore
        readState = read
        gate = SharedReadGate()
        _ = gate.handle(.selected(isSelected))
        _ = gate.handle(.sharedRead(read?.readCursor))
        markerTaken = false
        unreadMarkerMessageId = nil
        takeUnreadMarker()
        updateUnread()
        feedGate(.newestVisible(history.newestVisible?.cursor))
        setError(
            "The Agent room's server no longer has the history shown here (it was restarted or restored "
                + "from an older copy); the room now shows the server's history"
                + (heldOverflowed
                    ? ", and messages that arrived while it reloaded come again as it reconnects." : "."),
            from: .history)
        onHistoryReset?(history.messages)
        if let onMessageMerged {
            for message in history.messages { onMessageMerged(message) }
        }
        // Read again: a read event the stream sent while the page loaded was held against the
        // old position (the next connection need not wait for it).
        own { [weak self] in await self?.loadReadState() }
        // Messages past the held ones were dropped, and the open connection would go on past
        // them (moving the replay point beyond a hole): connect again, replaying from the held
        // ones' end, before the connection merges anything else.
        if heldOverflowed { subscribe() }
    }

    // MARK: History, transcript, unread and shared read

    private func historyChanged(_ change: AgentRoomHistory.Change) {
        hasMoreBefore = history.hasMoreBefore
        guard change.changedMessages else { return }
        transcript.update(from: history)
        updateUnread()
        feedGate(.newestVisible(history.newestVisible?.cursor))
        if let onMessageMerged {
            for message in change.inserted { onMessageMerged(message) }
            for message in change.updated { onMessageMerged(message) }
        }
    }

    private func showOlder() -> Bool {
        transcript.showOlder(in: history) > 0
    }

    private func applyReadState(_ state: AgentReadState) {
        if let current = readState?.readCursor, let incoming = state.readCursor, incoming < current { return }
        if state.readCursor == nil, readState?.readCursor != nil { return }
        readState = state
        takeUnreadMarker()
        feedGate(.sharedRead(state.readCursor))
        updateUnread()
    }

    /// Places the "new" marker once per selection, as soon as the read position is known.
    private func takeUnreadMarker() {
        guard isSelected, !markerTaken, readState != nil else { return }
        markerTaken = true
        unreadMarkerMessageId = AgentTranscript.unreadMarker(in: history, readState: readState)
    }

    private func updateUnread() {
        unreadCount = AgentTranscript.unreadCount(in: history, readState: readState)
    }

    private func feedGate(_ event: SharedReadGate.Event) {
        guard case .markRead(let cursor)? = gate.handle(event) else { return }
        guard isStarted, resetTask == nil, !discardingThisConnection else {
            // Stopped: nothing is posted; the cursor stays unposted for the next start. While a
            // lost history reloads, or after its reload failed until the next connection, the
            // cursor is one of the history the server no longer has: posted, it could mark the
            // server's own messages read that nobody saw.
            _ = gate.handle(.markReadFailed(cursor))
            return
        }
        let api = api
        own { [weak self] in
            do {
                let state = try await api.markRead(cursor)
                self?.applyReadState(state)
            } catch {
                self?.feedGate(.markReadFailed(cursor))
            }
        }
    }

    // MARK: Errors and tasks

    private func setError(_ text: String, from origin: ErrorOrigin) {
        roomError = text
        errorOrigin = origin
    }

    private func clearError(from origin: ErrorOrigin) {
        guard errorOrigin == origin else { return }
        roomError = nil
        errorOrigin = nil
    }

    /// Starts `body` as a task held until it ends (``stop()`` cancels and awaits it).
    @discardableResult
    private func own(_ body: @escaping @MainActor () async -> Void) -> Task<Void, Never> {
        nextWorkId += 1
        let id = nextWorkId
        let task = Task { @MainActor [weak self] in
            await body()
            self?.work[id] = nil
        }
        work[id] = task
        return task
    }

    /// `text` ending in a full stop.
    private static func sentence(_ text: String) -> String {
        guard let last = text.last, !".!?".contains(last) else { return text }
        return text + "."
    }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return seconds < 1 ? "under a second" : "\(Int(seconds.rounded())) s"
    }
}
