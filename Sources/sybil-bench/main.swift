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

// `--smoke` without names runs every case, also those only run by name, except `server` (it
// needs wrk and aiohttp); with names, only those.
let arguments = Array(CommandLine.arguments.dropFirst()).filter { $0 != "--smoke" }
let selected = Set(arguments)
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }
func byName(_ name: String) -> Bool { (smoke && selected.isEmpty) || selected.contains(name) }

print("sybil-bench: best of \(repetitions) runs; ratios compare against a baseline timed in the same run")
if smoke {
    print(
        "sybil-bench --smoke: every case with its sizes divided by \(benchScale), once; the figures mean nothing")
    if wants("server") { print("server: skipped under --smoke (it needs wrk and aiohttp)") }
}
if wants("sse") || wants("sse-small") {
    benchmarkSSE(
        label: "small deltas (64 MiB, 16 KiB chunks)", stream: sseStream(eventBytes: 200, total: scaled(64 << 20)),
        chunk: 16 << 10)
}
if wants("sse") || wants("sse-large") {
    benchmarkSSE(
        label: "1 MiB events (64 MiB, 16 KiB chunks)",
        stream: sseStream(eventBytes: 1 << 20, total: scaled(64 << 20, atLeast: 2 << 20)),
        chunk: 16 << 10)
}
if wants("lock") {
    benchmarkLock(turns: scaled(10_000_000))
}
if wants("fnv") {
    benchmarkFNV(bytes: scaled(16 << 20))
}
if wants("envelope") {
    benchmarkEnvelope(rows: scaled(10_000))
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
if selected.contains("server") && !smoke {
    benchmarkServer()
}
if byName("agent-replay") {
    benchmarkAgentReplay()
}
if byName("agent-outbox") {
    await benchmarkAgentOutbox(repetitions: repetitions)
}
if wants("resume") { await benchmarkChatResume() }
if wants("tui-output") { benchmarkTUIOutput() }
if wants("reply-render") { benchmarkReplyRender() }
if byName("workspace") {
    await benchmarkWorkspace(repetitions: repetitions)
}
if byName("records") { await benchmarkRecords(repetitions: repetitions) }
if byName("search") {
    await benchmarkSearch(arguments: arguments)
}
if selected.contains("search-corpus") { await writeSearchCorpus(arguments: arguments) }
let failures = failedCases.load(ordering: .relaxed)
if failures > 0 {
    print("sybil-bench: \(failures) case(s) failed; each says why above")
    exit(1)
}
