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

// Each benchmark times the Sybil code and a baseline doing comparable work on the same bytes
// in the same run, best of several repetitions, and prints the ratio: these machines are
// noisy, so only ratios are compared across runs. Wall-clock time is right here: this is a
// benchmark, not a test of a rule.

let repetitions = Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_REPETITIONS"] ?? "") ?? 5
let clock = ContinuousClock()

func best(_ body: () -> Void) -> Double {
    var fastest = Double.infinity
    for _ in 0..<repetitions {
        let start = clock.now
        body()
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        fastest = min(fastest, seconds)
    }
    return fastest
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

// MARK: SSE parse throughput vs a memchr newline scan

func sseStream(eventBytes: Int, total: Int) -> [UInt8] {
    var stream: [UInt8] = []
    stream.reserveCapacity(total + eventBytes)
    if eventBytes <= 512 {
        var counter = 0
        while stream.count < total {
            counter += 1
            let event =
                "id: \(counter)\ndata: {\"id\":\"chatcmpl-42\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word\(counter % 97) \"},\"finish_reason\":null}]}\n\n"
            stream.append(contentsOf: event.utf8)
        }
    } else {
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: eventBytes - 8)
        while stream.count < total {
            stream.append(contentsOf: "data: ".utf8)
            stream.append(contentsOf: payload)
            stream.append(contentsOf: "\n\n".utf8)
        }
    }
    return stream
}

/// Feeds `stream` to a parser in `chunk`-byte pieces, handing each event to `body`.
func parseInChunks(_ stream: [UInt8], chunk: Int, _ body: (ServerSentEvent) -> Void) {
    var parser = EventStreamParser()
    stream.withUnsafeBufferPointer { buffer in
        var start = 0
        while start < buffer.count {
            let end = min(start + chunk, buffer.count)
            parser.feed(UnsafeBufferPointer(rebasing: buffer[start..<end]), dispatch: body)
            start = end
        }
    }
    parser.finish()
}

func benchmarkSSE(label: String, stream: [UInt8], chunk: Int) {
    var events = 0
    let parseSeconds = best {
        var count = 0
        parseInChunks(stream, chunk: chunk) { event in count += event.dataBytes.isEmpty ? 0 : 1 }
        events = count
    }
    var newlines = 0
    let scanSeconds = best {
        var count = 0
        stream.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                let end = min(start + chunk, buffer.count)
                var cursor = UnsafeRawPointer(base + start)
                let limit = UnsafeRawPointer(base + end)
                while cursor < limit, let hit = memchr(cursor, 0x0A, limit - cursor) {
                    count += 1
                    cursor = UnsafeRawPointer(hit) + 1
                }
                start = end
            }
        }
        newlines = count
    }
    let mib = Double(stream.count) / 1_048_576
    print(
        "sse \(label): \(events) events, parse \(format(mib / parseSeconds, 0)) MiB/s, "
            + "memchr scan \(format(mib / scanSeconds, 0)) MiB/s (\(newlines) newlines), "
            + "ratio \(format(scanSeconds / parseSeconds * 100, 1)) % of scan speed (goal >= 25 %)")
}

// MARK: Strict envelope decode vs Foundation JSONDecoder

struct PlainBlock: Decodable {
    var type: String
    var id: String
    var origin: String
    var sourceOrder: [UInt64]
    var timestamp: Int64
    var text: String
    var runId: String?
    var operationId: String?
    var subagentThreadId: String?
}

struct PlainOverlay: Decodable {
    var settlementEpoch: Int64
    var revision: Int64
    var blocks: [PlainBlock]
}

struct PlainLoadState: Decodable {
    var state: String
    var reason: String?
}

struct PlainActiveRun: Decodable {
    var runId: String
}

struct PlainEnvelope: Decodable {
    var boundaryToken: String
    var codexSessionId: String?
    var loadState: PlainLoadState
    var storageFormat: String
    var loadedEntries: Int64
    var hasOlderEntries: Bool
    var oldestCursor: String?
    var timeline: [PlainBlock]
    var liveOverlay: PlainOverlay
    var activeRun: PlainActiveRun?
}

func envelopeBytes(rows: Int) -> [UInt8] {
    let timeline: [JSONValue] = (0..<rows).map { index in
        let type = ["user", "agent-reply", "activity", "system", "thinking"][index % 5]
        return [
            "type": .string(type), "id": .string("row-\(index)"), "origin": "canonical",
            "sourceOrder": [.number(JSONNumber(Int64(index))), 0],
            "timestamp": .number(JSONNumber(Int64(1_764_000_000_000 + index))),
            "text": .string(
                "Row \(index): the agent read Sources/App/Feature\(index % 40).swift and proposed a change."),
        ]
    }
    let envelope: JSONValue = [
        "boundaryToken": "b-1", "codexSessionId": "s-1", "loadState": ["state": "ready"], "storageFormat": "indexed",
        "loadedEntries": .number(JSONNumber(Int64(rows))), "hasOlderEntries": true, "oldestCursor": "c-0",
        "timeline": .array(timeline),
        "liveOverlay": [
            "settlementEpoch": 3, "revision": 1,
            "blocks": [
                [
                    "type": "agent-reply", "id": "live-1", "origin": "live", "sourceOrder": [1], "timestamp": 1,
                    "text": "…", "runId": "r-1",
                ]
            ],
        ],
        "runtime": ["model": "agent"], "activeRun": ["runId": "r-1"],
    ]
    return Array(JSONWriter().string(from: envelope).utf8)
}

func benchmarkEnvelope(rows: Int) {
    let bytes = envelopeBytes(rows: rows)
    let data = Data(bytes)
    var strictCount = 0
    let strictSeconds = best {
        let envelope = try! WorkspaceChatLoadEnvelope.decode(json: bytes)
        strictCount = envelope.timeline.count
    }
    var plainCount = 0
    let foundationSeconds = best {
        let envelope = try! JSONDecoder().decode(PlainEnvelope.self, from: data)
        plainCount = envelope.timeline.count
    }
    precondition(strictCount == rows && plainCount == rows, "both decoders must read every row")
    print(
        "envelope \(rows) rows (\(format(Double(bytes.count) / 1_048_576)) MiB): strict \(format(strictSeconds * 1000)) ms, "
            + "Foundation JSONDecoder \(format(foundationSeconds * 1000)) ms, "
            + "ratio \(format(foundationSeconds / strictSeconds)) x Foundation's speed (goal >= 1.00)")
}

// MARK: Snapshot application

/// A timeline of `rows` confirmed rows with 100 pending messages, and a snapshot of `rows`
/// rows that overlaps half of it, carries an overlay, and confirms half the pending messages.
func snapshotWorkload(rows: Int) -> (WorkspaceTimeline, TimelineSnapshot) {
    func block(_ index: Int, operationId: String? = nil) -> TimelineBlock {
        TimelineBlock(
            type: operationId == nil ? .agentReply : .user, id: "row-\(index)", origin: .canonical,
            sourceOrder: [UInt64(index)], timestamp: Int64(index), text: "Row \(index) text",
            runId: "run-\(index / 50)",
            operationId: operationId)
    }
    var timeline = WorkspaceTimeline()
    timeline.apply(
        TimelineSnapshot(
            loadState: .ready, rows: (0..<rows).map { block($0) }, hasOlderEntries: true, oldestCursor: "c-0",
            overlay: .empty, activeRunId: nil))
    for index in 0..<100 {
        timeline.addPending(
            PendingMessage(operationId: "op-\(index)", text: "pending \(index)", createdAt: Int64(index)))
    }
    let start = rows / 2
    var snapshotRows = (start..<(start + rows)).map { block($0) }
    for index in 0..<50 {
        snapshotRows[snapshotRows.count - 1 - index * 3] = block(
            start + rows - 1 - index * 3, operationId: "op-\(index)")
    }
    let overlay = LiveOverlay(
        settlementEpoch: 1, revision: 7,
        blocks: (0..<20).map { index in
            TimelineBlock(
                type: .agentReply, id: "live-\(index)", origin: .live, sourceOrder: [UInt64(rows * 2 + index)],
                timestamp: 0, text: "streaming", runId: "run-live")
        })
    let snapshot = TimelineSnapshot(
        loadState: .ready, rows: snapshotRows, hasOlderEntries: true, oldestCursor: "c-\(start)", overlay: overlay,
        activeRunId: "run-live")
    return (timeline, snapshot)
}

func benchmarkSnapshotApply() {
    // The two sizes are timed alternately, best of each, so that a noisy stretch of the run
    // does not land on one size only.
    let sizes = [10_000, 100_000]
    let workloads = sizes.map(snapshotWorkload(rows:))
    var fastest = [Double](repeating: .infinity, count: sizes.count)
    for _ in 0..<repetitions {
        for (index, (timeline, snapshot)) in workloads.enumerated() {
            var confirmed = 0
            let start = clock.now
            var copy = timeline
            let outcome = copy.apply(snapshot)
            confirmed = outcome.confirmedOperations.count
            let elapsed = start.duration(to: clock.now)
            blackHole(copy)
            precondition(confirmed == 50, "the snapshot confirms 50 pending messages")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            fastest[index] = min(fastest[index], seconds)
        }
    }
    for (index, rows) in sizes.enumerated() {
        print(
            "snapshot apply \(rows) rows (+20 live, 100 pending): \(format(fastest[index] * 1000)) ms, "
                + "\(format(fastest[index] * 1e6 / Double(rows), 3)) µs per row (goal <= 1)")
    }
    print("snapshot apply 100k/10k time ratio: \(format(fastest[1] / fastest[0])) (goal <= 12, linear is 10)")
}

// MARK: Uploads and the outbox

/// A desktop in the same process that takes chunks and only counts them.
final class CountingUploadDesktop: WorkspaceUploadRPC {
    let chunkSize = 1 << 20
    private let counted = Mutex<Int64>(0)
    var base64Bytes: Int64 { counted.withLock { $0 } }

    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin {
        AttachmentUploadBegin(uploadId: "bench", chunkSize: chunkSize)
    }

    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        counted.withLock { $0 += Int64(base64.utf8.count) }
    }

    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult {
        AttachmentUploadResult(uploadId: uploadId, size: 0, sha256: String(repeating: "0", count: 64))
    }

    func cancelUpload(callKey: String, uploadId: String) async throws {}
}

/// Peak resident memory (VmHWM) in bytes; `resetPeakMemory()` starts a new peak.
func peakResidentBytes() -> Int64 {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int64(line.split(separator: " ").dropFirst().first ?? "")
    else { return -1 }
    return kib * 1024
}

func resetPeakMemory() {
    // Writing 5 to clear_refs resets VmHWM to the current resident size (Linux ≥ 4.0).
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Writes `size` bytes of varied content to `path`, 1 MiB at a time.
func writeTestFile(_ path: String, size: Int) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var block = [UInt8](repeating: 0, count: 1 << 20)
    let random = SeededRandomSource(seed: 11)
    for index in block.indices { block[index] = UInt8(truncatingIfNeeded: random.nextUInt64()) }
    for _ in 0..<(size >> 20) { try handle.write(contentsOf: block) }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

func benchmarkUpload() async {
    let size = 1 << 30
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-upload").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/one-gib.bin"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do { try writeTestFile(path, size: size) } catch {
        print("upload: cannot write the test file: \(error)")
        return
    }
    let chat = WorkspaceChatKey(desktopId: "bench", projectId: "bench", sessionId: "bench")
    let file = AttachmentUploader.File(path: path, fileName: "one-gib.bin", mimeType: "application/octet-stream")
    var uploadSeconds = Double.infinity
    var peak: Int64 = 0
    for _ in 0..<max(1, min(repetitions, 3)) {
        let desktop = CountingUploadDesktop()
        let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
        resetPeakMemory()
        let start = clock.now
        do { _ = try await uploader.upload(file, to: chat) } catch {
            print("upload: failed: \(error)")
            return
        }
        uploadSeconds = min(uploadSeconds, seconds(start.duration(to: clock.now)))
        peak = max(peak, peakResidentBytes())
        // Each 1 MiB chunk is encoded on its own (with its own padding).
        precondition(desktop.base64Bytes == Int64(size >> 20) * Int64(((1 << 20) + 2) / 3 * 4), "every byte was sent")
    }
    var base64Seconds = Double.infinity
    for _ in 0..<max(1, min(repetitions, 3)) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/base64")
        process.arguments = [path]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let start = clock.now
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            print("upload: cannot run base64: \(error)")
            return
        }
        base64Seconds = min(base64Seconds, seconds(start.duration(to: clock.now)))
    }
    let mib = Double(size) / 1_048_576
    print(
        "upload 1 GiB through an in-process desktop: \(format(mib / uploadSeconds, 0)) MiB/s, "
            + "coreutils base64 \(format(mib / base64Seconds, 0)) MiB/s, "
            + "ratio \(format(base64Seconds / uploadSeconds * 100, 1)) % (goal >= 50 %); "
            + "peak resident memory \(format(Double(peak) / 1_048_576, 1)) MiB (goal <= 64)")
}

func benchmarkOutboxEnqueue() async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-outbox").path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
        let store = try FileKeyValueStore(directory: directory + "/kv")
        let outbox = try WorkspaceOutbox(store: store)
        let chat = WorkspaceChatKey(desktopId: "bench", projectId: "bench", sessionId: "bench")
        let count = 50
        var enqueueTotal = 0.0
        for index in 0..<count {
            let entry = WorkspaceOutboxEntry(
                chat: chat, operationId: "op-\(index)",
                mutation: .init(mutationId: "m-\(index)", text: "Nachricht \(index)"),
                mode: .send, createdAt: Int64(index))
            let start = clock.now
            try await outbox.enqueue(entry)
            enqueueTotal += seconds(start.duration(to: clock.now))
        }
        // Baseline: write + fsync of a file of the same size as the stored outbox, same disk.
        let bytes = try store.data(forKey: WorkspaceOutbox.storageKey) ?? []
        let rawPath = directory + "/raw"
        var rawTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            let descriptor = open(rawPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            rawTotal += seconds(start.duration(to: clock.now))
        }
        // The same store write alone, outside the actor, to separate I/O from the rest.
        var setTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            try store.set(bytes, forKey: "bench-copy")
            setTotal += seconds(start.duration(to: clock.now))
        }
        let parsed = try JSONReader().parse(bytes)
        var encodeTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            blackHole(Array(JSONWriter().string(from: parsed).utf8))
            encodeTotal += seconds(start.duration(to: clock.now))
        }
        print(
            "  (key-value store set alone: \(format(setTotal / Double(count) * 1e6, 0)) µs mean; "
                + "encoding the last document: \(format(encodeTotal / Double(count) * 1e6, 0)) µs)")
        let enqueue = enqueueTotal / Double(count) * 1e6
        let raw = rawTotal / Double(count) * 1e6
        print(
            "outbox enqueue (\(count) entries, last document \(bytes.count) B): \(format(enqueue, 0)) µs mean, "
                + "raw write+fsync \(format(raw, 0)) µs mean, ratio \(format(enqueue / raw)) x (goal <= 2)")
    } catch {
        print("outbox: failed: \(error)")
    }
}

// MARK: WebSocket echo and the SSE transport

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A loopback server that answers the WebSocket handshake and echoes every message, or (for
/// the baseline) echoes raw bytes without any framing.
func echoServer(webSocket: Bool) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request, connection in
        if webSocket {
            let accept = WebSocketHandshake.acceptValue(for: request.header("Sec-WebSocket-Key") ?? "")
            connection.write(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: \(accept)\r\n\r\n")
            var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 24)
            while true {
                while let frame = try? decoder.nextFrame() {
                    if frame.opcode == .close {
                        connection.write(
                            WebSocketFrame(opcode: .close, payload: frame.payload).encoded(maskingKey: nil))
                        return
                    }
                    connection.write(
                        WebSocketFrame(fin: frame.fin, opcode: frame.opcode, payload: frame.payload).encoded(
                            maskingKey: nil))
                }
                let bytes = connection.read(maximum: 1 << 20)
                if bytes.isEmpty { return }
                decoder.append(bytes)
            }
        } else {
            connection.write("HTTP/1.1 200 OK\r\n\r\n")  // the client starts echoing after this
            while true {
                let bytes = connection.read(maximum: 1 << 20)
                if bytes.isEmpty { return }
                connection.write(bytes)
            }
        }
    }
}

/// Round trips of `size`-byte messages over a raw TCP echo: the baseline.
func rawEchoSeconds(port: UInt16, size: Int, count: Int, request: String) -> Double {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    var yes: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    _ = request.withCString { send(descriptor, $0, strlen($0), 0) }  // the server reads a request head first
    let payload = [UInt8](repeating: 0x61, count: size)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var answer: [UInt8] = []
    while !answer.ends(with: Array("\r\n\r\n".utf8)) {
        let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, 1, 0) }
        if got <= 0 { return .infinity }
        answer.append(buffer[0])
    }
    let start = clock.now
    for _ in 0..<count {
        var sent = 0
        while sent < size { sent += payload[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } }
        var received = 0
        while received < size {
            let got = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, min($0.count, size - received), 0)
            }
            if got <= 0 { return .infinity }
            received += got
        }
    }
    return seconds(start.duration(to: clock.now))
}

func benchmarkWebSocket() async {
    for (size, count) in [(16 << 10, 2_000), (1 << 20, 100)] {
        do {
            let server = try echoServer(webSocket: true)
            let socket = try await SocketWebSocket.connect(
                to: URL(string: "ws://127.0.0.1:\(server.port)/echo")!,
                options: WebSocketOptions(maximumMessage: 1 << 24),
                random: SeededRandomSource(seed: 3), clock: ContinuousClock())
            let payload = [UInt8](repeating: 0x61, count: size)
            var iterator = socket.incoming.makeAsyncIterator()
            let start = clock.now
            for _ in 0..<count {
                try socket.send(binary: payload)
                guard case .binary(let echoed)? = try await iterator.next(), echoed.count == size else {
                    print("websocket: the echo went wrong")
                    return
                }
            }
            let wsSeconds = seconds(start.duration(to: clock.now))
            socket.close(code: 1000, reason: "")
            let raw = try echoServer(webSocket: false)
            let rawSeconds = rawEchoSeconds(port: raw.port, size: size, count: count, request: "GET / HTTP/1.1\r\n\r\n")
            let megabytes = Double(size * count) / 1_048_576
            print(
                "websocket echo \(size >> 10) KiB x \(count): \(format(Double(count) / wsSeconds, 0)) round trips/s, "
                    + "\(format(megabytes / wsSeconds, 0)) MiB/s each way; raw TCP echo \(format(Double(count) / rawSeconds, 0)) round trips/s; "
                    + "ratio \(format(rawSeconds / wsSeconds * 100, 1)) % of raw")
        } catch {
            print("websocket: \(error)")
        }
    }
}

func benchmarkSSETransport() async {
    let stream = sseStream(eventBytes: 200, total: 64 << 20)
    let chunk = 16 << 10
    do {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(stream.count + 14)\r\n\r\n")
            var start = 0
            while start < stream.count {
                let end = min(start + chunk, stream.count)
                connection.write(Array(stream[start..<end]))
                start = end
            }
            connection.write("data: [DONE]\n\n")
        }
        let transport = SSEChatTransport(http: URLSessionHTTPClient(), clock: ContinuousClock())
        var chunks = 0
        let start = clock.now
        for try await _ in transport.chunks(for: HTTPRequest(url: server.url)) { chunks += 1 }
        let transportSeconds = seconds(start.duration(to: clock.now))
        var parserEvents = 0
        let parserSeconds = best {
            var count = 0
            parseInChunks(stream, chunk: chunk) { _ in count += 1 }
            parserEvents = count
        }
        var decoded = 0
        let decodeSeconds = best {
            var count = 0
            parseInChunks(stream, chunk: chunk) { event in
                if case .chunk? = try? OpenAIStreamEvent.decode(event) { count += 1 }
            }
            decoded = count
        }
        let mib = Double(stream.count) / 1_048_576
        print(
            "sse parser + chunk decoding (no transport): \(decoded) chunks, \(format(mib / decodeSeconds, 0)) MiB/s")
        print(
            "sse through URLSession + transport (64 MiB small deltas, loopback): \(chunks) chunks, "
                + "\(format(mib / transportSeconds, 0)) MiB/s; parser alone \(parserEvents) events, \(format(mib / parserSeconds, 0)) MiB/s; "
                + "ratio \(format(parserSeconds / transportSeconds * 100, 1)) % of the parser alone")
    } catch {
        print("sse transport: \(error)")
    }
}

/// `server`: runs scripts/bench-server (sybil serve against aiohttp under wrk, and held SSE
/// streams); it needs a checkout, Python and apt-get, so it runs only when asked for by name.
func benchmarkServer() {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/bench-server")
    let process = Process()
    process.executableURL = script
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        print("server: cannot run \(script.path): \(error)")
    }
}

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
if selected.contains("workspace") {
    await benchmarkWorkspace(repetitions: repetitions)
}
if selected.contains("search") {
    await benchmarkSearch(arguments: Array(CommandLine.arguments.dropFirst()))
}
