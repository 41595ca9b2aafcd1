import Foundation
import Testing

@testable import SybilServer

/// `docs/api/openapi.yaml` must describe exactly the server's REST routes, as the route table
/// declares them, so standard API tooling can drive the server.
@Suite("OpenAPI document", .timeLimit(.minutes(2)))
struct OpenAPIDocumentTests {
    private static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/api/openapi.yaml")

    /// The `METHOD path` pairs under `paths:` (paths at two spaces, methods at four).
    private func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "post", "put", "patch", "delete"].contains(String(method)) {
                    operations.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    @Test func everyRESTRouteIsDescribedAndNothingElse() throws {
        let rest = RouteTable.sybil.routes.filter { $0.kind == .rest }
        let served = Set(rest.map { "\($0.method) \($0.template)" })
        #expect(served.count == rest.count, "a route is declared twice")
        let documented = try documentedOperations()
        #expect(served.subtracting(documented).isEmpty, "routes missing from openapi.yaml")
        #expect(documented.subtracting(served).isEmpty, "openapi.yaml describes routes the server lacks")
        #expect(!documented.isEmpty)
    }

    /// Each path parameter of a documented route is the one its template names.
    @Test func everyPathParameterIsDocumentedByItsTemplateName() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        for route in RouteTable.sybil.routes where route.kind == .rest {
            for case .parameter(let name) in route.segments {
                #expect(text.contains("{name: \(name), in: path, required: true"), "\(route.template)")
            }
        }
    }

    /// The base path is documented as a second server: tools reach every route under both.
    @Test func theAPIBasePathIsDocumentedAsASecondServer() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let servers = text.split(separator: "\n").filter { $0.hasPrefix("  - url: ") }.map { $0.dropFirst(9) }
        #expect(servers == ["http://127.0.0.1:8799\(ServerRoute.basePath)", "http://127.0.0.1:8799"])
        #expect(ServerRoute.allCases.filter(\.isUnderBasePath).count == ServerRoute.allCases.count - 1)
    }
}
