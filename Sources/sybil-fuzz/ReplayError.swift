#if !LIBFUZZER
    import Foundation

    /// A replay that cannot start: a missing path or an unknown target.
    struct ReplayError: Error, LocalizedError {
        var message: String

        init(_ message: String) { self.message = message }

        var errorDescription: String? { message }
    }
#endif
