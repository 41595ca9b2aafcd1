import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client for live-socket tests: writes exact bytes, reads what the server
/// sends. Every read has a receive timeout so a broken server fails the test instead of
/// hanging it. `@unchecked Sendable`: a test hands the client to one blocking helper thread
/// at a time and waits for it, so the buffer is never used from two threads at once.
public final class RawClient: @unchecked Sendable {
    private var descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; every read waits at most `receiveTimeout` seconds.
    public init(port: Int, receiveTimeout: Int = 30) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close()
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close() }

    /// Sends `text` as UTF-8, all of it unless the connection fails.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends `bytes`, all of them unless the connection fails.
    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Ends the connection both ways, as a client that goes away would; the descriptor itself
    /// is closed once, by ``close()`` or `deinit`.
    public func disconnect() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Closes the sending half (the server sees end of input).
    public func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Closes the socket (a FIN, as a client that goes away cleanly); reads then find nothing.
    public func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    /// Closes the socket with a reset (SO_LINGER of zero), as a client that crashed would.
    public func reset() {
        var immediately = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &immediately, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    /// Reads until the server closes (or the timeout); returns everything not yet consumed.
    public func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads one response: head, then a Content-Length or chunked body (decoded).
    public func readResponse() -> (status: Int, headers: [String: String], body: [UInt8])? {
        guard let headEnd = readUntil([13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeSubrange(..<(headEnd + 4))
        let lines = head.components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if status == 101 || status == 100 { return (status, headers, []) }
        if headers["transfer-encoding"] == "chunked" {
            var body: [UInt8] = []
            while true {
                guard let lineEnd = readUntil([13, 10]) else { return nil }
                let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                buffer.removeSubrange(..<(lineEnd + 2))
                guard readCount(size + 2) else { return nil }
                body.append(contentsOf: buffer[..<size])
                buffer.removeSubrange(..<(size + 2))
                if size == 0 { return (status, headers, body) }
            }
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard readCount(length) else { return nil }
        let body = Array(buffer[..<length])
        buffer.removeSubrange(..<length)
        return (status, headers, body)
    }

    /// Reads until `count` bytes are buffered; returns them.
    public func read(count: Int) -> [UInt8]? {
        guard readCount(count) else { return nil }
        defer { buffer.removeSubrange(..<count) }
        return Array(buffer[..<count])
    }

    /// Reads until `marker` arrives; returns everything before it and consumes the marker.
    public func read(until marker: String) -> String? {
        let bytes = Array(marker.utf8)
        guard let end = readUntil(bytes) else { return nil }
        defer { buffer.removeSubrange(..<(end + bytes.count)) }
        return String(decoding: buffer[..<end], as: UTF8.self)
    }

    private func readUntil(_ marker: [UInt8]) -> Int? {
        while true {
            if let range = buffer.firstRange(of: marker) { return range.lowerBound }
            guard fill() else { return nil }
        }
    }

    private func readCount(_ count: Int) -> Bool {
        while buffer.count < count {
            guard fill() else { return false }
        }
        return true
    }

    private func fill() -> Bool {
        guard descriptor >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
