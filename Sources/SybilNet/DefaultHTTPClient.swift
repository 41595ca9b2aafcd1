/// The ``HTTPClient`` the apps use: ``SocketHTTPClient`` on Linux (URLSession there spins at
/// full CPU while a streamed body is silent), ``URLSessionHTTPClient`` on Apple platforms.
public enum DefaultHTTPClient {
    /// A client; `followRedirects: false` makes a 3xx the final response.
    public static func make(followRedirects: Bool = true) -> any HTTPClient {
        #if canImport(Glibc) && canImport(COpenSSL)
            SocketHTTPClient(followRedirects: followRedirects)
        #else
            URLSessionHTTPClient(followRedirects: followRedirects)
        #endif
    }
}
