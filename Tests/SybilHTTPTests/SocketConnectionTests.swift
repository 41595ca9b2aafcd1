#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import Glibc
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilHTTP

    /// `SocketConnection` over a real loopback socket: when a paused inbox is read again, taking
    /// what waits in one piece, and waking its I/O thread after the thread has ended.
    @Suite("SocketConnection", .timeLimit(.minutes(2)))
    struct SocketConnectionTests {
        static let floodLimit = 64 << 20
        static let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        static let answerHead = "HTTP/1.1 200 OK\r\n\r\n"

        /// A connection to a server that answers with a flood of `x` bytes, paused on its full inbox.
        private static func pausedConnection() async throws -> (SocketConnection, LoopbackHTTPServer) {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(Self.answerHead)
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let paused = await ConditionWait.until { connection.isReadingPaused }
            #expect(paused, "the connection kept reading: \(connection.bufferedBytes) bytes held")
            return (connection, server)
        }

        @Test func aPausedInboxIsReadAgainOnlyOnceDrainedToItsResumeLevel() async throws {
            let (connection, server) = try await Self.pausedConnection()
            defer { withExtendedLifetime(server) { connection.shutdown() } }
            var held = connection.bufferedBytes
            #expect(held >= SocketConnection.inboxLimit)
            // Above the resume level a take leaves reading paused: the inbox only shrinks, by
            // exactly what was taken.
            var takes = 0
            while true {
                let chunk = try #require(try await connection.receive())
                takes += 1
                held -= chunk.count
                if held <= SocketConnection.resumeLevel { break }
                #expect(connection.isReadingPaused)
                #expect(connection.bufferedBytes == held)
            }
            #expect(takes > 1, "one take drained the inbox to its resume level")
            // The take that reached the resume level let reading go on: the inbox fills again.
            let refilled = await ConditionWait.until { connection.bufferedBytes >= SocketConnection.inboxLimit }
            #expect(refilled, "reading did not resume: \(connection.bufferedBytes) bytes held")
        }

        @Test func takingWhatWaitsTakesWholeChunksInOrderUpToTheLimit() async throws {
            let (connection, server) = try await Self.pausedConnection()
            defer { withExtendedLifetime(server) { connection.shutdown() } }
            let limit = SocketConnection.inboxLimit / 2
            let taken = connection.takeReceived(whileUnder: limit)
            let bytes = taken.flatMap { $0 }
            #expect(bytes.count >= limit)
            #expect(bytes.count - (taken.last?.count ?? 0) < limit, "a chunk was taken past the limit")
            // The stream's first bytes, in order: the answer's head, then the flood.
            let head = Array(Self.answerHead.utf8)
            #expect(Array(bytes.prefix(head.count)) == head)
            #expect(bytes.dropFirst(head.count).allSatisfy { $0 == UInt8(ascii: "x") })
            // A limit of zero takes nothing.
            #expect(connection.takeReceived(whileUnder: 0).isEmpty)
        }

        @Test func theEndStaysForReceiveAfterEverythingWaitingIsTaken() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(Self.answerHead)
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(await ConditionWait.until { connection.hasEnded })
            let taken = connection.takeReceived(whileUnder: .max).flatMap { $0 }
            #expect(taken == Array(Self.answerHead.utf8))
            #expect(connection.takeReceived(whileUnder: .max).isEmpty)
            #expect(try await connection.receive() == nil)
        }

        /// `receiveDirect(into:)` reads only on the connection's I/O thread and only once the
        /// inbox is empty: the bytes come in stream order, straight into the caller's memory,
        /// and a call from another thread reads nothing even while bytes wait in the socket. A
        /// direct read that finds nothing makes the next ``SocketConnection/receive()`` answer
        /// `[]` once the socket is readable, so the caller reads the bytes itself.
        @Test func aDirectReadTakesTheNextBytesOnlyOnTheIOThreadAfterTheInbox() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(Self.answerHead)
                var buffer = [UInt8](repeating: 0, count: 16)
                guard connection.read(into: &buffer) > 0 else { return }  // the client's "go"
                connection.write("second")
                _ = connection.read(into: &buffer)  // until the client closes
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            defer { withExtendedLifetime(server) { connection.shutdown() } }
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(await ConditionWait.until { connection.bufferedBytes == Self.answerHead.utf8.count })
            let (withInbox, head, woken, offThread, read) = try await withTaskExecutorPreference(connection) {
                () async throws -> (Int?, [UInt8], [[UInt8]?], Int??, [UInt8]) in
                try await Self.hopOntoTheIOThread(of: connection)
                var target = [UInt8](repeating: 0, count: 64)
                // The head waits in the inbox: nothing is read past it.
                let withInbox = target.withUnsafeMutableBytes { connection.receiveDirect(into: $0) }
                let head = connection.takeReceived(whileUnder: .max).flatMap { $0 }
                connection.write(Array("go".utf8))
                // The first byte of "second", read here: each try that finds nothing is followed
                // by a wait that the thread ends with no bytes once they have come.
                var woken: [[UInt8]?] = []
                var first: Int?
                while first == nil {
                    first = target.withUnsafeMutableBytes {
                        connection.receiveDirect(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<1]))
                    }
                    if first == nil { woken.append(try await connection.receive()) }
                }
                // The rest waits in the socket (this job holds the I/O thread, so no read of
                // the thread's comes between); another thread's call reads none of it.
                let offThread = Locked<Int??>(nil)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    var other = [UInt8](repeating: 0, count: 64)
                    let count = other.withUnsafeMutableBytes { connection.receiveDirect(into: $0) }
                    offThread.withLock { $0 = .some(count) }
                    done.signal()
                }.start()
                done.wait()
                var rest = 0
                while rest < 5 {
                    let count = target.withUnsafeMutableBytes {
                        connection.receiveDirect(into: UnsafeMutableRawBufferPointer(rebasing: $0[(1 + rest)...]))
                    }
                    if let count { rest += count } else { woken.append(try await connection.receive()) }
                }
                return (withInbox, head, woken, offThread.withLock { $0 }, Array(target[..<(1 + rest)]))
            }
            #expect(withInbox == nil)
            #expect(head == Array(Self.answerHead.utf8))
            #expect(woken.allSatisfy { $0 == [] }, "the thread read ahead of the caller: \(woken)")
            #expect(offThread == .some(nil), "a thread other than the I/O thread read the socket")
            #expect(read == Array("second".utf8))
        }

        /// A direct read that meets the end of the stream reads nothing and leaves the end to
        /// ``SocketConnection/receive()``, which reports it after the bytes before it.
        @Test func aDirectReadLeavesTheEndOfTheStreamToReceive() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(Self.answerHead)
                var buffer = [UInt8](repeating: 0, count: 16)
                _ = connection.read(into: &buffer)  // the client's "go"; then the server closes
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            defer { withExtendedLifetime(server) { connection.shutdown() } }
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(await ConditionWait.until { connection.bufferedBytes == Self.answerHead.utf8.count })
            let (head, received, direct) = try await withTaskExecutorPreference(connection) {
                () async throws -> ([UInt8], [[UInt8]], [Int]) in
                try await Self.hopOntoTheIOThread(of: connection)
                let head = connection.takeReceived(whileUnder: .max).flatMap { $0 }
                connection.write(Array("go".utf8))
                var target = [UInt8](repeating: 0, count: 64)
                var received: [[UInt8]] = []
                var direct: [Int] = []
                while true {
                    if let count = target.withUnsafeMutableBytes({ connection.receiveDirect(into: $0) }) {
                        direct.append(count)
                    }
                    guard let bytes = try await connection.receive() else { break }
                    received.append(bytes)
                }
                return (head, received, direct)
            }
            #expect(head == Array(Self.answerHead.utf8))
            #expect(direct.isEmpty, "bytes were read after the server sent none")
            #expect(received.allSatisfy { $0.isEmpty }, "bytes came after the server sent none: \(received)")
        }

        /// Moves the calling task, which prefers `connection` as its executor, onto the
        /// connection's I/O thread: it waits for a continuation resumed by a task there.
        private static func hopOntoTheIOThread(of connection: SocketConnection) async throws {
            await withCheckedContinuation { (hop: CheckedContinuation<Void, Never>) in
                Task(executorPreference: connection) { hop.resume() }
            }
            try #require(threadName() == "sybil-socket", "the task is not on the I/O thread")
        }

        /// The name of the thread running the caller.
        private static func threadName() -> String {
            Thread.current.name ?? ""
        }

        @Test func wakingAConnectionWhoseThreadEndedWritesToNoOtherFile() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(Self.answerHead)
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            while try await connection.receive() != nil {}
            #expect(await ConditionWait.until { connection.hasEnded })
            // Descriptors opened now take the lowest free numbers: had the connection closed its
            // wake pipe, these would be its numbers, and a wake-up would land here.
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            defer {
                close(ends[0])
                close(ends[1])
            }
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            connection.write(Array("more".utf8))
            connection.shutdown()
            var byte: UInt8 = 0
            let count = read(ends[0], &byte, 1)
            let error = errno
            #expect(count < 0 && error == EAGAIN, "a wake-up reached another file")
        }
    }
#endif
