import Foundation

extension WebSocketHandshake {
    /// The request head for `url` (`ws:`/`wss:`), with extra header fields: its path and query
    /// as the target, its host (and a port other than the scheme's default) as `Host`.
    public func requestHead(for url: URL, headers: HTTPHeaders = HTTPHeaders()) -> String {
        let defaultPort = url.scheme == "wss" ? 443 : 80
        let host = url.host ?? "localhost"
        let hostField = url.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        return requestHead(target: target, host: hostField, headers: headers)
    }
}
