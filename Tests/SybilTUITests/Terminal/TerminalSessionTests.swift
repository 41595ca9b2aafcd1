import SybilCore
import Testing

@testable import SybilTUI

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(CEpoll)
    import CEpoll
#endif

/// A pseudo-terminal pair: the session runs on the slave; the test plays the terminal on the master.
private struct PseudoTerminal {
    let master: Int32
    let slave: Int32

    init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        try #require(sybil_open_pty(&master, &slave) == 0, "opening a pseudo-terminal failed: errno \(errno)")
        self.master = master
        self.slave = slave
    }

    func close() {
        _ = Glibc.close(master)
        _ = Glibc.close(slave)
    }

    /// Reads what the session wrote until `wanted` has arrived (or five seconds of silence).
    func read(until wanted: String) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains(wanted) {
            var watch = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&watch, 1, 5000) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether anything is waiting to be read right now.
    var hasPendingOutput: Bool {
        var watch = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        return poll(&watch, 1, 0) > 0
    }

    func settings() -> termios {
        var settings = termios()
        _ = tcgetattr(slave, &settings)
        return settings
    }
}

private func same(_ left: termios, _ right: termios) -> Bool {
    var left = left
    var right = right
    return left.c_iflag == right.c_iflag && left.c_oflag == right.c_oflag && left.c_lflag == right.c_lflag
        && left.c_cflag == right.c_cflag
        && withUnsafeBytes(of: &left.c_cc) { a in withUnsafeBytes(of: &right.c_cc) { b in a.elementsEqual(b) } }
}

private func isRaw(_ settings: termios) -> Bool {
    var settings = settings
    let local = tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    let input = tcflag_t(IXON | ICRNL)
    let cc = withUnsafeBytes(of: &settings.c_cc) { ($0[Int(VMIN)], $0[Int(VTIME)]) }
    return settings.c_lflag & local == 0 && settings.c_iflag & input == 0 && settings.c_oflag & tcflag_t(OPOST) == 0
        && cc == (1, 0)
}

private func next(
    _ events: inout AsyncStream<TerminalEvent>.AsyncIterator, _ matching: (TerminalEvent) -> Bool
) async -> TerminalEvent? {
    while let event = await events.next() {
        if matching(event) { return event }
    }
    return nil
}

/// Signal dispositions belong to the process, so these run one at a time.
@Suite(.serialized, .timeLimit(.minutes(2))) struct TerminalSessionTests {
    private let enable = String(decoding: TerminalModes.fullScreen.enableSequence, as: UTF8.self)
    private let disable = String(decoding: TerminalModes.fullScreen.disableSequence, as: UTF8.self)

    @Test func startEntersRawModeAndStopPutsTheOriginalSettingsBack() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let original = pty.settings()
        #expect(!isRaw(original))
        #expect(TerminalDevice.isTerminal(pty.slave))
        let session = TerminalSession(device: TerminalDevice(input: pty.slave, output: pty.slave), modes: .fullScreen)
        try session.start()
        #expect(isRaw(pty.settings()))
        let started = pty.read(until: "\u{1B}[c")
        #expect(started == enable + String(decoding: TerminalQueries.startup, as: UTF8.self))
        session.stop()
        #expect(pty.read(until: disable) == disable)
        #expect(same(pty.settings(), original))
        session.stop()
        #expect(!pty.hasPendingOutput, "a second stop writes nothing")
        #expect(same(pty.settings(), original))
    }

    @Test func inputAndResizesArriveAsEventsAndFramesReachTheTerminal() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        #expect(sybil_set_window_size(pty.master, 80, 24) == 0)
        let session = TerminalSession(device: TerminalDevice(input: pty.slave, output: pty.slave), modes: .fullScreen)
        #expect(session.size == TerminalSize(columns: 80, rows: 24))
        try session.start()
        _ = pty.read(until: "\u{1B}[c")
        var events = session.events.makeAsyncIterator()
        _ = Glibc.write(pty.master, "hi", 2)
        let input = await next(&events) { if case .input = $0 { true } else { false } }
        #expect(input == .input(Array("hi".utf8)))
        #expect(sybil_set_window_size(pty.master, 100, 40) == 0)
        // The pty is not this process's controlling terminal, so the kernel's SIGWINCH goes
        // elsewhere; send it the way the kernel would.
        _ = kill(getpid(), SIGWINCH)
        let resize = await next(&events) { if case .resize = $0 { true } else { false } }
        #expect(resize == .resize(TerminalSize(columns: 100, rows: 40)))
        var grid = CellGrid(columns: 100, rows: 40)
        grid.write("hello from the session", column: 0, row: 0, style: .plain)
        session.present(grid, cursor: CursorPlacement(column: 0, row: 1))
        #expect(pty.read(until: "session").contains("hello from the session"))
        session.stop()
    }

    @Test func suspendPutsTheTerminalBackAndContinuingRestoresRawModeAndRepaints() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let original = pty.settings()
        let stops = Locked(0)
        let session = TerminalSession(
            device: TerminalDevice(input: pty.slave, output: pty.slave), modes: .fullScreen, colors: true
        ) { stops.withLock { $0 += 1 } }
        try session.start()
        _ = pty.read(until: "\u{1B}[c")
        var grid = CellGrid(columns: 10, rows: 2)
        grid.write("frame", column: 0, row: 0, style: .plain)
        session.present(grid, cursor: nil)
        _ = pty.read(until: "frame")
        var events = session.events.makeAsyncIterator()
        session.suspend()
        #expect(stops.withLock { $0 } == 1)
        #expect(same(pty.settings(), original))
        #expect(pty.read(until: disable).hasSuffix(disable))
        _ = kill(getpid(), SIGCONT)
        let resumed = await next(&events) { $0 == .resume }
        #expect(resumed == .resume)
        #expect(isRaw(pty.settings()))
        #expect(pty.read(until: enable).hasSuffix(enable))
        session.present(grid, cursor: nil)
        #expect(pty.read(until: "frame").contains("\u{1B}[2J"), "the first frame after a resume repaints everything")
        session.stop()
        #expect(same(pty.settings(), original))
    }

    @Test func closingTheTerminalEndsInput() async throws {
        let pty = try PseudoTerminal()
        let session = TerminalSession(device: TerminalDevice(input: pty.slave, output: pty.slave), modes: .none)
        try session.start()
        var events = session.events.makeAsyncIterator()
        _ = Glibc.close(pty.master)
        let closed = await next(&events) { $0 == .inputClosed }
        #expect(closed == .inputClosed)
        session.stop()
        _ = Glibc.close(pty.slave)
    }

    @Test func aDescriptorThatIsNotATerminalIsRefusedWithItsNumber() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer {
            _ = Glibc.close(descriptors[0])
            _ = Glibc.close(descriptors[1])
        }
        let device = TerminalDevice(input: descriptors[0], output: descriptors[1])
        #expect(device.size() == .fallback)
        #expect(throws: TerminalError.notATerminal(descriptor: descriptors[0])) { try device.enterRawMode() }
        device.restore()
    }
}
