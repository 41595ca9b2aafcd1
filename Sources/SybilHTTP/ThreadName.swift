#if canImport(CEpoll)
    import CEpoll
#elseif canImport(Darwin)
    import Darwin
#endif

/// Names the calling thread, as debuggers, `perf` and `top -H` show it and as tests that check
/// where code runs read it (`Thread.current.name`).
///
/// Foundation's `Thread.name` setter does not do this reliably on Linux: it names the system
/// thread only once the creating thread has stored the new thread's handle, which happens after
/// the thread was started. A name set before `start()` is lost, and one set from inside the new
/// thread is lost whenever that thread runs first; the thread then keeps the name it inherited
/// from its creator (a cooperative-pool thread's `oot.default-qos`).
public enum ThreadName {
    /// The longest name Linux keeps, in bytes.
    public static let maximumBytes = 15

    /// Names the calling thread `name`, cut to ``maximumBytes`` bytes at a character boundary.
    public static func setCurrent(_ name: String) {
        var bytes: [UInt8] = []
        for character in name {
            let utf8 = Array(String(character).utf8)
            guard bytes.count + utf8.count <= maximumBytes else { break }
            bytes += utf8
        }
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                #if canImport(CEpoll)
                    _ = sybil_set_current_thread_name(text.baseAddress!)
                #elseif canImport(Darwin)
                    _ = pthread_setname_np(text.baseAddress!)
                #endif
            }
        }
    }
}
