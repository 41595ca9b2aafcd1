import Foundation
import SybilCore
import SybilHTTP

/// `sybil serve` as an object: the app on an ``HTTPServer``, started and stopped together.
/// The command line and `sybil ask` (embedded, on an ephemeral loopback port) use it; tests
/// start it in-process.
///
/// It owns one ``ServerExecutor`` of two threads, started with it, that both the transport's
/// handlers and the app's background work (the Agent's turns, workspace runs, chat streams'
/// producers and upstream forwarders) run on; ``shutdown(grace:)`` ends that work before it
/// stops the threads, so nothing of the server runs after it.
public final class ReferenceServer: Sendable {
    /// The running transport.
    public let http: HTTPServer
    /// The options it runs with (the token among them).
    public let options: SybilServerOptions
    /// The threads the transport and the app run on, ended by ``shutdown(grace:)``.
    public let executor: ServerExecutor
    /// The app the transport runs.
    let app: SybilServerApp

    /// Starts serving `options` on `configuration`'s address; `random` draws chat stream ids.
    public init(
        options: SybilServerOptions, configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
        time: ServerTime = .live, upstream: (any HTTPClient)? = nil, random: any RandomSource = SystemRandomSource()
    ) throws {
        self.options = options
        let executor = ServerExecutor(threads: 2)
        do {
            // The app's work starts only once the address is bound: a server that cannot bind
            // has started nothing that would outlive it.
            let app = try SybilServerApp(
                options: options, time: time, upstream: upstream, random: random, starting: false, executor: executor)
            self.app = app
            // The app checks the token from each request's head, before any body is read.
            http = try HTTPServer(configuration: configuration, handler: app, executor: executor)
            app.start()
        } catch {
            executor.stop()
            throw error
        }
        self.executor = executor
    }

    /// Where clients reach it.
    public var baseURL: URL { http.baseURL }

    /// The transport's statistics (``HTTPServer/statistics``), its running tasks counting the
    /// app's background tasks too (``SybilServerApp/runningTasks``).
    public var statistics: TransportStatistics {
        var snapshot = http.statistics
        snapshot.runningTasks += app.runningTasks
        return snapshot
    }

    /// Stops it gracefully (see ``HTTPServer/shutdown(grace:)``), then the work the app owns
    /// within `grace` more on the app's clock (see ``SybilServerApp/shutdown(within:)``): an
    /// Agent turn still in progress is cancelled and finished by the next start. Then the
    /// executor stops, and once every task ended its threads have exited when this returns
    /// (a task that ignored its cancellation past the deadlines is left to end on the global
    /// executor, and its thread with it). Returns the names of the app's tasks that had not
    /// ended by then (empty when all did).
    @discardableResult
    public func shutdown(grace: Duration = .seconds(5)) async -> [String] {
        await http.shutdown(grace: grace)
        let unfinished = await app.shutdown(within: grace)
        executor.stop()
        if unfinished.isEmpty, http.statistics.runningTasks == 0 { await executor.stopped() }
        return unfinished
    }

    /// Returns once the app has no work in flight (see ``SybilServerApp/quiescent()``).
    public func quiescent() async {
        await app.quiescent()
    }
}
