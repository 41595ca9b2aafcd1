import Foundation
import SybilCore
import SybilNet

/// `sybil serve` as an object: the app on an ``HTTPServer``, started and stopped together.
/// The command line and `sybil ask` (embedded, on an ephemeral loopback port) use it; tests
/// start it in-process.
public final class ReferenceServer: Sendable {
    /// The running transport.
    public let http: HTTPServer
    /// The options it runs with (the token among them).
    public let options: SybilServerOptions
    /// The app the transport runs.
    let app: SybilServerApp

    /// Starts serving `options` on `configuration`'s address; `random` draws chat stream ids.
    public init(
        options: SybilServerOptions, configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
        time: ServerTime = .live, upstream: (any HTTPClient)? = nil, random: any RandomSource = SystemRandomSource()
    ) throws {
        self.options = options
        let app = try SybilServerApp(options: options, time: time, upstream: upstream, random: random)
        self.app = app
        do {
            http = try HTTPServer(configuration: configuration, handler: app)
        } catch {
            // Nothing was served: stop the app's work before giving up.
            Task { await app.shutdown() }
            throw error
        }
    }

    /// Where clients reach it.
    public var baseURL: URL { http.baseURL }

    /// Stops it gracefully (see ``HTTPServer/shutdown(grace:)``), then the work the app owns:
    /// an Agent turn still in progress is cancelled and finished by the next start.
    public func shutdown(grace: Duration = .seconds(5)) async {
        await http.shutdown(grace: grace)
        await app.shutdown()
    }
}
