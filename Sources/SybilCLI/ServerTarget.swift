import Foundation
import SybilNet
import SybilServer
import SybilStore

/// Which server a client command talks to: `--api-url`/`SYBIL_API_URL` with
/// `--token`/`SYBIL_TOKEN`, or, without a URL, the reference server embedded in this process
/// on a free loopback port (a generated token, never printed).
struct ServerTarget {
    /// The server's base URL, `nil` for the embedded server.
    var apiURL: URL?
    /// The bearer token for `apiURL`.
    var token: String?

    /// The target the environment names.
    init(environment: [String: String]) {
        apiURLText = environment["SYBIL_API_URL"].flatMap { $0.isEmpty ? nil : $0 }
        token = environment["SYBIL_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private var apiURLText: String?

    /// `--api-url URL`; `example` is shown in its help.
    static func apiURLOption(example: String? = nil) -> OptionSpec {
        .text(
            "--api-url", valueName: "URL",
            help: example.map {
                "The server's base URL, e.g. \($0)\n(default: $SYBIL_API_URL, else the embedded server)."
            } ?? "The server's base URL (default: $SYBIL_API_URL, else the\nembedded server).")
    }

    /// `--token TOKEN`.
    static let tokenOption = OptionSpec.text(
        "--token", valueName: "TOKEN", help: "The bearer token (default: $SYBIL_TOKEN).")

    /// The target the environment names, with `--api-url` and `--token` from `parsed` over it.
    init(environment: [String: String], parsed: ParsedArguments) {
        self.init(environment: environment)
        if let text = parsed.text(Self.apiURLOption()) { apiURLText = text }
        if let token = parsed.text(Self.tokenOption) { self.token = token }
    }

    /// Checks the URL once every option is read.
    mutating func validate(command: String) throws(UsageError) {
        guard let text = apiURLText else { return }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
        else {
            throw UsageError(command: command, message: "--api-url needs an http: or https: URL, got '\(text)'")
        }
        apiURL = url
    }

    /// A live connection: the base URL, a token chain holding the token, and the embedded
    /// server when there is one (stopped by ``Connection/close()``).
    struct Connection {
        var baseURL: URL
        var tokens: TokenProvider
        var embedded: ReferenceServer?

        func close() async {
            await embedded?.shutdown()
        }
    }

    /// Connects: the given server, or an embedded one configured by `configure`. Reports a
    /// server that cannot start on standard error and returns `nil`.
    func connect(
        command: String, io: CommandIO, configure: (inout SybilServerOptions) -> Void = { _ in }
    ) -> Connection? {
        let account = "sybil-cli"
        func tokens(_ token: String?) -> TokenProvider {
            TokenProvider(
                current: TokenLocation(
                    store: InMemorySecretStore(token.map { [account: $0] } ?? [:]), account: account))
        }
        if let apiURL {
            return Connection(baseURL: apiURL, tokens: tokens(token), embedded: nil)
        }
        var options = SybilServerOptions(token: ServeCommand.randomToken(from: io.random))
        configure(&options)
        do {
            let server = try ReferenceServer(options: options)
            io.writeError("\(command): using the embedded server at \(server.baseURL.absoluteString)\n")
            return Connection(baseURL: server.baseURL, tokens: tokens(options.token), embedded: server)
        } catch {
            io.writeError("\(command): cannot start the embedded server: \(error)\n")
            return nil
        }
    }
}
