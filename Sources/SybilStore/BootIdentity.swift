#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Names the running boot of this machine: a value that stays the same while the kernel runs
/// and changes when it starts again (after a power loss, a crash of the system or a restart).
///
/// Data a process wrote without `fsync` survives the process dying (the kernel holds it) but
/// not a new boot. A store that writes some records without `fsync` records the boot beside
/// them, so a relaunch can tell whether those records are all there (same boot) or may be lost
/// (another boot).
public enum BootIdentity {
    /// Longest identity read (the Linux file holds a 36-character UUID and a newline).
    static let maxBytes = 128

    /// The current boot's identity, or `nil` when the system does not say (a caller then
    /// writes every record with `fsync`).
    ///
    /// Linux: `/proc/sys/kernel/random/boot_id`. Apple platforms: `kern.bootsessionuuid`.
    public static func current() -> String? {
        #if os(Linux)
            return identity(atPath: "/proc/sys/kernel/random/boot_id")
        #elseif canImport(Darwin)
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0, size <= maxBytes else {
                return nil
            }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
            return validated(bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
        #else
            return nil
        #endif
    }

    /// The identity in the file at `path` (at most ``maxBytes``, white space trimmed), or `nil`
    /// when it cannot be read or is not a short printable name.
    static func identity(atPath path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: maxBytes + 1)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, count <= maxBytes else { return nil }
        return validated(Array(buffer[..<count]))
    }

    /// `bytes` without surrounding white space when the rest is 1–64 printable ASCII
    /// characters other than white space; otherwise `nil`.
    static func validated(_ bytes: [UInt8]) -> String? {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let name = bytes[first...last]
        guard name.count <= 64, name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}
