import SybilClient
import SybilCore
import SybilTesting
import SybilTimeline
import SybilWire

/// A random source that always returns the same bits: 0 for no jitter, `.max` for the most.
struct FixedRandomSource: RandomSource {
    var value: UInt64 = 0
    func nextUInt64() -> UInt64 { value }
}

let chatA = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "a")
let chatB = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "b")

@MainActor
func makeHost(
    _ key: WorkspaceChatKey = chatA, rpc: ScriptedWorkspaceChatRPC, clock: ManualClock = ManualClock(),
    jitter: UInt64 = 0
) -> WorkspaceChatHost {
    WorkspaceChatHost(key: key, rpc: rpc, clock: clock, random: FixedRandomSource(value: jitter))
}
