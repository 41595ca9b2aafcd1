#if canImport(Darwin)
    import Foundation
    import SybilCore
    import SybilHTTP

    /// The WebSocket client on Apple platforms: `URLSessionWebSocketTask` behind
    /// ``WebSocketConnection``, kept thin (the Linux client is ``SocketWebSocket``).
    public final class URLSessionWebSocket: WebSocketConnection {
        public let incoming: AsyncThrowingStream<WebSocketIncoming, any Error>
        private let task: URLSessionWebSocketTask
        private let continuation: AsyncThrowingStream<WebSocketIncoming, any Error>.Continuation
        private let keepalive = Locked<Task<Void, Never>?>(nil)

        /// Opens a connection to `url` with `options` (headers, message size, keepalive).
        public init(url: URL, options: WebSocketOptions = WebSocketOptions(), session: URLSession = .shared) {
            var request = URLRequest(url: url)
            for field in options.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
            task = session.webSocketTask(with: request)
            task.maximumMessageSize = options.maximumMessage
            (incoming, continuation) = AsyncThrowingStream<WebSocketIncoming, any Error>.makeStream()
            task.resume()
            receive()
            let task = task
            let interval = options.pingInterval
            keepalive.withLock {
                $0 = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)  // live clock: the keepalive timer
                        task.sendPing { _ in }
                    }
                }
            }
        }

        deinit {
            keepalive.withLock { $0?.cancel() }
        }

        public func send(text: String) throws {
            task.send(.string(text)) { [continuation] error in
                if let error { continuation.finish(throwing: WebSocketError.connectionLost(String(describing: error))) }
            }
        }

        public func send(binary: [UInt8]) throws {
            task.send(.data(Data(binary))) { [continuation] error in
                if let error { continuation.finish(throwing: WebSocketError.connectionLost(String(describing: error))) }
            }
        }

        public func close(code: UInt16, reason: String) {
            let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
            task.cancel(with: closeCode, reason: Data(reason.utf8))
        }

        private func receive() {
            task.receive { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(.string(let text)):
                    continuation.yield(.text(text))
                    receive()
                case .success(.data(let data)):
                    continuation.yield(.binary([UInt8](data)))
                    receive()
                case .success:
                    receive()
                case .failure(let error):
                    if task.closeCode != .invalid {
                        let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
                        continuation.yield(.closed(code: UInt16(task.closeCode.rawValue), reason: reason))
                        continuation.finish()
                    } else {
                        continuation.finish(throwing: WebSocketError.connectionLost(String(describing: error)))
                    }
                    keepalive.withLock { $0?.cancel() }
                }
            }
        }
    }
#endif
