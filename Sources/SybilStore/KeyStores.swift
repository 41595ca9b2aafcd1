/// Chooses where keys are kept and checks their names.
public enum KeyStores {
    /// The longest key name, in characters.
    public static let maximumNameLength = 64

    /// The Secret Service when a session bus offers one (DBUS_SESSION_BUS_ADDRESS set and the
    /// service answers), else the 0600 file store under $XDG_DATA_HOME/sybil/ (XDGDirectories),
    /// with `notice` set to a one-line sentence saying keys are kept in a file and where. Keys
    /// found in the file store are moved into the Secret Service once when it becomes available
    /// (a move that fails leaves them in the files, says why in `notice`, and is tried again at
    /// the next open).
    public static func open(environment: [String: String]) throws -> (store: any KeyStore, notice: String?) {
        let file = FileKeyStore.standard(environment: environment)
        let service: any KeyStore
        switch secretService(environment: environment) {
        case .success(let found): service = found
        case .failure(let reason):
            return (
                file,
                "Keys are kept in \(file.location) because \(reason.text); start GNOME Keyring or KWallet to keep them in the Secret Service."
            )
        }
        do {
            let moved = try move(from: file, to: service)
            let notice =
                moved == 0
                ? nil : "Moved \(moved) \(moved == 1 ? "key" : "keys") from \(file.location) into \(service.location)."
            return (service, notice)
        } catch {
            // The service still works: keys not moved stay in the files and are tried again at
            // the next open.
            return (
                service,
                "Some keys are still in \(file.location) because moving them into \(service.location) failed (\(error)); fix that and they move at the next use."
            )
        }
    }

    /// A valid key name: 1–64 of A–Z a–z 0–9 . _ - ; else nil-free error message naming the name.
    public static func validate(name: String) throws(KeyNameError) {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
            name.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            })
        else { throw KeyNameError(name: name) }
    }

    /// Why the Secret Service is not used, for the notice.
    private struct Unavailable: Error {
        /// `no session bus is set (DBUS_SESSION_BUS_ADDRESS)`.
        var text: String
    }

    /// The Secret Service, when the environment names a session bus and the service answers on it.
    private static func secretService(environment: [String: String]) -> Result<any KeyStore, Unavailable> {
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            return .failure(Unavailable(text: "no session bus is set (DBUS_SESSION_BUS_ADDRESS)"))
        }
        #if canImport(CSecret)
            do {
                return .success(try SecretServiceKeyStore())
            } catch {
                let message = String(error.message.map { $0.isNewline ? " " : $0 }.prefix(200))
                return .failure(Unavailable(text: "no Secret Service answered on the session bus (\(message))"))
            }
        #else
            return .failure(Unavailable(text: "this system has no Secret Service client"))
        #endif
    }

    /// Moves every key of `file` into `service` (a key `service` already holds wins and the
    /// file's copy is dropped); returns how many were moved.
    static func move(from file: FileKeyStore, to service: any KeyStore) throws -> Int {
        let names = try file.keyNames()
        guard !names.isEmpty else { return 0 }
        let kept = Set(try service.keyNames())
        var moved = 0
        for name in names {
            if !kept.contains(name), let secret = try file.key(named: name) {
                try service.setKey(secret, named: name)
                moved += 1
            }
            _ = try file.removeKey(named: name)
        }
        return moved
    }
}
