#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A secret typed on the terminal that is standard input, never echoed: echo, canonical mode
/// and signal keys are turned off with termios while the line is read, and the terminal's
/// settings are restored before it returns. The keys are edited by ``edit(_:with:)``.
enum TerminalSecretInput {
    /// What reading gave.
    enum Result: Equatable {
        /// The line typed, without its end.
        case line([UInt8])
        /// Ctrl+C was pressed.
        case cancelled
        /// The terminal could not be set up or read (the system's reason).
        case failed(String)
    }

    /// What one key does to the line.
    enum Step: Equatable {
        /// Keep reading.
        case more
        /// Enter, or Ctrl+D: the line is complete.
        case done
        /// Ctrl+C.
        case cancelled
    }

    /// Writes `prompt` to standard error, reads a line from standard input with echo off,
    /// restores the terminal and ends the prompt's line.
    static func readLine(prompt: String, io: CommandIO) -> Result {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return .failed(String(cString: strerror(errno))) }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        io.writeError(prompt)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0 else {
            return .failed(String(cString: strerror(errno)))
        }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            io.writeError("\n")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            if count == 0 { return .line(line) }
            switch edit(&line, with: byte) {
            case .more: continue
            case .done: return .line(line)
            case .cancelled:
                line.withUnsafeMutableBufferPointer { buffer in
                    for index in buffer.indices { buffer[index] = 0 }
                }
                return .cancelled
            }
        }
    }

    /// Applies one key to `line`: Enter (CR or LF) or Ctrl+D ends it, Ctrl+C cancels,
    /// Backspace/Delete removes the last character (a whole UTF-8 sequence), Ctrl+U clears the
    /// line; other control keys are ignored.
    static func edit(_ line: inout [UInt8], with byte: UInt8) -> Step {
        switch byte {
        case 0x0A, 0x0D, 0x04: return .done
        case 0x03: return .cancelled
        case 0x08, 0x7F:
            while let last = line.popLast(), last & 0xC0 == 0x80 {}
            return .more
        case 0x15:
            line.removeAll()
            return .more
        case 0x00..<0x20: return .more
        default:
            line.append(byte)
            return .more
        }
    }
}
