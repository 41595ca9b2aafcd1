import SybilTerminalInput

/// Fuzzes SybilTUI's `TerminalInputDecoder`. Fed whole, byte by byte or in seeded pieces (with
/// a flush after the last piece when an Esc is pending), a stream gives the same input; text
/// keys are compared as the text they spell, since a grapheme whose scalars arrive in different
/// reads comes as more than one key. Every paste is within the bound and holds no control
/// character but LF and Tab; every mouse report is at a cell with non-negative coordinates.
public enum TerminalInputFuzzTarget {
    /// Decodes the stream in each chunking, checks each output and compares them.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var reference: (name: String, inputs: [Normalised])?
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            var decoder = TerminalInputDecoder()
            var inputs: [TerminalInput] = []
            for chunk in chunks { inputs += decoder.feed(chunk) }
            if decoder.hasPendingEscape { inputs += decoder.flush() }
            try check(inputs)
            let normalised = normalise(inputs)
            guard let reference else {
                reference = (name, normalised)
                continue
            }
            guard normalised == reference.inputs else {
                throw FuzzFailure(
                    target: .terminalInput,
                    "fed \(reference.name): \(reference.inputs.count) inputs; fed \(name): \(normalised.count) inputs")
            }
        }
    }

    /// An input with runs of unmodified character keys joined into text.
    enum Normalised: Equatable {
        case text(String)
        case other(TerminalInput)
    }

    private static func normalise(_ inputs: [TerminalInput]) -> [Normalised] {
        var result: [Normalised] = []
        for input in inputs {
            if case .key(let event) = input, event.modifiers.isEmpty, case .character(let character) = event.key {
                if case .text(let text) = result.last {
                    result[result.count - 1] = .text(text + String(character))
                } else {
                    result.append(.text(String(character)))
                }
            } else {
                result.append(.other(input))
            }
        }
        return result
    }

    private static func check(_ inputs: [TerminalInput]) throws(FuzzFailure) {
        for input in inputs {
            switch input {
            case .paste(let text):
                guard text.utf8.count <= TerminalInputDecoder.maximumPasteBytes else {
                    throw FuzzFailure(target: .terminalInput, "a paste of \(text.utf8.count) bytes passed the bound")
                }
                let control = text.unicodeScalars.first {
                    ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F..<0xA0).contains($0.value)
                }
                if let control {
                    throw FuzzFailure(
                        target: .terminalInput, "a paste holds control U+\(String(control.value, radix: 16))")
                }
            case .mouse(let event):
                guard event.column >= 0, event.row >= 0 else {
                    throw FuzzFailure(target: .terminalInput, "a mouse report at \(event.column),\(event.row)")
                }
            default:
                break
            }
        }
    }
}
