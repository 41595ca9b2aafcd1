import Foundation
import SybilCore
import SybilHTTP

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
        // The app's work starts only once the address is bound: a server that cannot bind
        // has started nothing that would outlive it.
        let app = try SybilServerApp(options: options, time: time, upstream: upstream, random: random, starting: false)
        self.app = app
        // The app checks the token from each request's head, before any body is read.
        http = try HTTPServer(configuration: configuration, handler: app)
        app.start()
    }

    /// Where clients reach it.
    public var baseURL: URL { http.baseURL }

    /// Stops it gracefully (see ``HTTPServer/shutdown(grace:)``), then the work the app owns
    /// within `grace` more on the app's clock (see ``SybilServerApp/shutdown(within:)``): an
    /// Agent turn still in progress is cancelled and finished by the next start. Returns the
    /// names of the app's tasks that had not ended by then (empty when all did).
    @discardableResult
    public func shutdown(grace: Duration = .seconds(5)) async -> [String] {
        await http.shutdown(grace: grace)
        return await app.shutdown(within: grace)
    }

    /// Returns once the app has no work in flight (see ``SybilServerApp/quiescent()``).
    public func quiescent() async {
        await app.quiescent()
    }
}
