import SybilCore
import Testing

/// Runs `decode` expecting a contract error at `path` whose message contains `fragment`; records
/// an issue when it decodes or fails another way.
func expectContractRejection<T>(
    at path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ decode: () throws -> T
) {
    do {
        let value = try decode()
        Issue.record("accepted an invalid value: \(value)", sourceLocation: sourceLocation)
    } catch let error as JSONError {
        #expect(error.kind == .contract, "\(error)", sourceLocation: sourceLocation)
        #expect(error.path.description == path, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a JSONError, got \(error)", sourceLocation: sourceLocation)
    }
}
