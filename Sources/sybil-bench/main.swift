import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Run

let selected = Set(CommandLine.arguments.dropFirst())
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

print("sybil-bench: best of \(repetitions) runs; ratios compare against a baseline timed in the same run")
if wants("sse") || wants("sse-small") {
    benchmarkSSE(
        label: "small deltas (64 MiB, 16 KiB chunks)", stream: sseStream(eventBytes: 200, total: 64 << 20),
        chunk: 16 << 10)
}
if wants("sse") || wants("sse-large") {
    benchmarkSSE(
        label: "1 MiB events (64 MiB, 16 KiB chunks)", stream: sseStream(eventBytes: 1 << 20, total: 64 << 20),
        chunk: 16 << 10)
}
if wants("envelope") {
    benchmarkEnvelope(rows: 10_000)
}
if wants("markdown") {
    benchmarkMarkdown()
}
if wants("tui-timeline") {
    benchmarkTUITimeline()
}
if wants("chat-items") {
    benchmarkChatItems()
}
if wants("snapshot") {
    benchmarkSnapshotApply()
}
if wants("outbox") {
    await benchmarkOutboxEnqueue()
}
if wants("upload") {
    await benchmarkUpload()
}
if wants("websocket") {
    await benchmarkWebSocket()
}
if wants("sse-transport") {
    await benchmarkSSETransport()
}
if selected.contains("server") {
    benchmarkServer()
}
if selected.contains("agent-replay") {
    benchmarkAgentReplay()
}
if selected.contains("agent-outbox") {
    await benchmarkAgentOutbox(repetitions: repetitions)
}
if wants("resume") { await benchmarkChatResume() }
if wants("tui-output") { benchmarkTUIOutput() }
if selected.contains("workspace") {
    await benchmarkWorkspace(repetitions: repetitions)
}
if selected.contains("records") { await benchmarkRecords(repetitions: repetitions) }
if selected.contains("search") {
    await benchmarkSearch(arguments: Array(CommandLine.arguments.dropFirst()))
}
