import SybilHTTP

#if canImport(Darwin)
    import SybilURLSession
#endif

/// The ``HTTPClient`` the apps use: ``SocketHTTPClient`` on Linux (URLSession there spins at
/// full CPU while a streamed body is silent), ``URLSessionHTTPClient`` on Apple platforms.
/// Neither follows a redirect.
public enum DefaultHTTPClient {
    /// A client; by default a redirect throws ``HTTPRedirectRefused`` naming its target, and
    /// with ``HTTPRedirects/deliver`` a 3xx is the final response. `connectTimeout` (`nil`:
    /// ``SocketHTTPClient/defaultConnectTimeout``) bounds the making of a connection on Linux;
    /// URLSession keeps its own.
    public static func make(redirects: HTTPRedirects = .refuse, connectTimeout: Duration? = nil) -> any HTTPClient {
        #if canImport(Glibc) && canImport(COpenSSL)
            let client = SocketHTTPClient(
                followRedirects: false, connectTimeout: connectTimeout ?? SocketHTTPClient.defaultConnectTimeout)
        #elseif canImport(Darwin)
            let client = URLSessionHTTPClient(followRedirects: false)
        #else
            #error("no HTTP client for this platform: SocketHTTPClient needs Glibc and OpenSSL, URLSession Apple's")
        #endif
        return redirects.applied(to: client)
    }
}
