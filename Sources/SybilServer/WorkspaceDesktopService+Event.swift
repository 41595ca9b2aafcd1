import SybilCore
import SybilWire

extension WorkspaceDesktopService {
    /// One live event of a chat; `id` is the `n` of its event id `<boot>.<n>`.
    struct Event: Sendable {
        var chat: WorkspaceChatKey
        var id: Int64
        var event: WorkspaceEvent
        /// The data as sent, encoded once for every stream; `nil` for deltas a slow stream
        /// merged, encoded when written.
        private var encoded: String?
        /// The bytes of the data as sent.
        private(set) var size: Int
        /// For a delta, the encoded bytes of each row it carries: what a merge needs to know
        /// its size without encoding it.
        private var blockSizes: [String: Int] = [:]

        /// A published event, encoded once.
        init(chat: WorkspaceChatKey, id: Int64, event: WorkspaceEvent) {
            self.chat = chat
            self.id = id
            self.event = event
            let text = event.dataText
            encoded = text
            size = text.utf8.count
            if case .overlayDelta(let delta) = event {
                let writer = JSONWriter()
                for block in delta.blocks { blockSizes[block.id] = writer.bytes(from: block.jsonValue).count }
            }
        }

        /// The event's data as sent.
        var dataText: String { encoded ?? event.dataText }

        /// Whether it is an overlay, whole or as a delta.
        var isOverlay: Bool {
            switch event {
            case .overlay, .overlayDelta: true
            default: false
            }
        }

        /// This delta event (the newer one) carrying `joined`, the merge of `earlier`'s delta and
        /// its own; its size is computed from the rows' sizes, its data encoded when written.
        func replacingDelta(_ joined: LiveOverlayDelta, joining earlier: Event) -> Event {
            var merged = self
            var sizes: [String: Int] = [:]
            for block in joined.blocks { sizes[block.id] = blockSizes[block.id] ?? earlier.blockSizes[block.id] ?? 0 }
            var header = joined
            header.blocks = []
            // Compact JSON: `[]` becomes `[a,b,…]`, so the rows add their bytes and a comma between each two.
            merged.size =
                JSONWriter().bytes(from: header.jsonValue).count + sizes.values.reduce(0, +)
                + max(0, joined.blocks.count - 1)
            merged.event = .overlayDelta(joined)
            merged.encoded = nil
            merged.blockSizes = sizes
            return merged
        }
    }
}
