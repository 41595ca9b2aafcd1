import SybilHTTP

/// Fuzzes the multipart/form-data parser. The input's first line is the Content-Type, the rest
/// the body. Fed whole, byte by byte or in seeded pieces, a body gives the same parts or the
/// same failure (the parser's documented promise); parts that parse, encoded again by
/// `MultipartFormData`, parse to the same parts.
public enum MultipartFuzzTarget {
    /// Small limits, so inputs of a few kilobytes reach each of them.
    static let limits = MultipartFormDataParser.Limits(
        maxParts: 8, maxHeaderBytes: 512, maxPartBytes: 1_024, maxBodyBytes: 4_096)

    /// Parses the body in each chunking, compares the outcomes, then checks the round trip.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        let (line, body) = FuzzSplits.firstLine(of: bytes)
        let contentType = String(decoding: line, as: UTF8.self)
        guard let boundary = try? MultipartFormDataParser.boundary(ofContentType: contentType) else { return }
        var reference: (name: String, outcome: Result<[MultipartFormData.Part], MultipartFormDataParser.Failure>)?
        for (name, chunks) in FuzzSplits.chunkings(of: body) {
            let outcome = try parse(chunks, contentType: contentType, fedAs: name)
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .multipart,
                    "fed \(reference.name): \(describe(reference.outcome)); fed \(name): \(describe(outcome))")
            }
        }
        guard case .success(let parts) = reference?.outcome else { return }
        // A name holding a literal `%22`, `%5C`, `%0D` or `%0A` reads back as the character it
        // escapes: the form encoding cannot carry such names (WHATWG), so they are not compared.
        guard !parts.contains(where: { $0.name.contains("%") || $0.fileName?.contains("%") == true }) else { return }
        let form = MultipartFormData(boundary: boundary, parts: parts)
        let roomy = MultipartFormDataParser.Limits(
            maxParts: limits.maxParts, maxHeaderBytes: 4 * limits.maxHeaderBytes, maxPartBytes: limits.maxPartBytes,
            maxBodyBytes: 16 * limits.maxBodyBytes)
        let again: [MultipartFormData.Part]
        do {
            again = try MultipartFormDataParser.parse(form.encoded(), contentType: form.contentType, limits: roomy)
        } catch {
            throw FuzzFailure(target: .multipart, "parts that parsed, encoded again, are refused: \(error)")
        }
        guard again == parts else {
            throw FuzzFailure(target: .multipart, "parts that parsed, encoded again, parse to different parts")
        }
    }

    private static func parse(
        _ chunks: [ArraySlice<UInt8>], contentType: String, fedAs name: String
    ) throws(FuzzFailure) -> Result<[MultipartFormData.Part], MultipartFormDataParser.Failure> {
        var parts: [MultipartFormData.Part] = []
        var open = false
        do {
            var parser = try MultipartFormDataParser(contentType: contentType, limits: limits)
            for chunk in chunks {
                for event in try parser.feed(chunk) {
                    if let problem = apply(event, to: &parts, open: &open) {
                        throw FuzzFailure(target: .multipart, "fed \(name), \(problem)")
                    }
                }
            }
            try parser.finish()
        } catch let failure as MultipartFormDataParser.Failure {
            return .failure(failure)
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure(target: .multipart, "fed \(name), an unexpected error: \(error)")
        }
        return .success(parts)
    }

    /// Adds one event to the parts read so far; returns what is wrong with it, if anything.
    private static func apply(
        _ event: MultipartFormDataParser.Event, to parts: inout [MultipartFormData.Part], open: inout Bool
    ) -> String? {
        switch event {
        case .partBegan(let head):
            guard !open, head.index == parts.count else { return "part \(head.index) began out of order" }
            parts.append(
                MultipartFormData.Part(
                    name: head.name, fileName: head.fileName, contentType: head.contentType, body: []))
            open = true
        case .partBytes(let piece):
            guard open else { return "content arrived outside a part" }
            parts[parts.count - 1].body += piece
            guard parts[parts.count - 1].body.count <= limits.maxPartBytes else { return "a part passed its limit" }
        case .partEnded:
            guard open else { return "a part ended that had not begun" }
            open = false
        }
        return nil
    }

    private static func describe(_ outcome: Result<[MultipartFormData.Part], MultipartFormDataParser.Failure>) -> String
    {
        switch outcome {
        case .success(let parts): "\(parts.count) parts of \(parts.map { String($0.body.count) }) bytes"
        case .failure(let failure): "refused (\(failure.message))"
        }
    }
}
