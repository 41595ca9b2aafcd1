import Observation
import SybilTimeline
import SybilWire

/// The recently visited workspace chats (SPEC §4.1): at most six hosts, least recently used
/// evicted; only the selected host is mounted and active.
///
/// A selection made while a view renders is only recorded (``selectDuringRender(_:)``, which
/// publishes nothing); the selection task commits it afterwards
/// (``commitPendingSelection()``), so the cache never changes in the middle of a view update.
@MainActor
@Observable
public final class WorkspaceChatHostCache {
    /// Hosts kept at most.
    public static let capacity = 6

    /// Cached hosts, least recently used first.
    public private(set) var hosts: [WorkspaceChatHost] = []
    /// The selected chat.
    public private(set) var selectedKey: WorkspaceChatKey?
    /// Whether the app is in the foreground.
    public private(set) var isAppActive = true
    /// Advances whenever another chat (or none) becomes the selected one; selecting the
    /// selected chat again does not advance it. A screen remembers it when it opens, so that
    /// closing releases the selection only if nothing was selected since
    /// (``deselect(ifNoSelectionSince:)``).
    public private(set) var selectionCount: UInt64 = 0

    @ObservationIgnored private var pendingSelection: WorkspaceChatKey??
    /// The desktop of the last chat selected (kept while nothing is selected).
    @ObservationIgnored private var lastDesktopId: String?
    @ObservationIgnored private let makeHost: @MainActor (WorkspaceChatKey) -> WorkspaceChatHost

    /// A cache that creates hosts with `makeHost`.
    public init(makeHost: @escaping @MainActor (WorkspaceChatKey) -> WorkspaceChatHost) {
        self.makeHost = makeHost
    }

    /// The mounted host: the selected one. No other host is mounted.
    public var selectedHost: WorkspaceChatHost? {
        guard let selectedKey else { return nil }
        return hosts.first { $0.key == selectedKey }
    }

    /// Records a selection made during a render, without publishing anything.
    public func selectDuringRender(_ key: WorkspaceChatKey?) {
        pendingSelection = .some(key)
    }

    /// Whether a recorded selection waits for ``commitPendingSelection()``.
    public var hasPendingSelection: Bool { pendingSelection != nil }

    /// Commits the recorded selection (the selection task calls this after the render).
    public func commitPendingSelection() {
        guard let pending = pendingSelection else { return }
        pendingSelection = nil
        select(pending)
    }

    /// Selects a chat now (outside a render): parks the previous host, mounts and activates
    /// this one, and evicts the least recently used host beyond ``capacity``. Selecting the
    /// selected chat again re-selects it (a new target generation and a reload). A chat on
    /// another desktop than the last one selected is marked stale first (another desktop was
    /// chosen), so a cached chat does not come back with rows older than its desktop's.
    public func select(_ key: WorkspaceChatKey?) {
        if key == selectedKey {
            selectedHost?.reselect()
            return
        }
        selectedHost?.park()
        selectedKey = key
        selectionCount += 1
        guard let key else { return }
        let host: WorkspaceChatHost
        if let index = hosts.firstIndex(where: { $0.key == key }) {
            host = hosts.remove(at: index)
        } else {
            host = makeHost(key)
        }
        hosts.append(host)
        if hosts.count > Self.capacity {
            hosts.removeFirst(hosts.count - Self.capacity)
        }
        if let lastDesktopId, lastDesktopId != key.desktopId { host.handle(.desktopChanged) }
        lastDesktopId = key.desktopId
        if isAppActive { host.activate() }
    }

    /// A screen opened when ``selectionCount`` was `count` closes: its chat is deselected (its
    /// host parked) unless another chat was selected since, which a later screen shows now
    /// (possibly of the same chat: leaving a chat and coming back before the first screen has
    /// closed must not park the second one's host).
    public func deselect(ifNoSelectionSince count: UInt64) {
        guard selectionCount == count, selectedKey != nil else { return }
        select(nil)
    }

    /// The app moved to the foreground or the background. Returning marks the selected chat
    /// stale; leaving parks it.
    public func setAppActive(_ active: Bool) {
        guard active != isAppActive else { return }
        isAppActive = active
        guard let host = selectedHost else { return }
        if active {
            host.handle(.returnedToForeground)
            host.activate()
        } else {
            host.park()
        }
    }

    /// A trigger that concerns the selected chat only (a run ended, the desktop was restored,
    /// another desktop selected, an explicit refresh, a newer `updatedAt`). Parked chats are
    /// never loaded in the background.
    public func handleForSelected(_ trigger: StalenessTrigger) {
        selectedHost?.handle(trigger)
    }

    /// The desktop's events were lost (a `reset`): every cached host is stale. The selected one
    /// loads now; parked ones load when they are selected again, never in the background.
    public func markEveryHostStale() {
        for host in hosts { host.handle(.desktopRestored) }
    }
}
