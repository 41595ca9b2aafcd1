import Testing

@testable import SybilMotion

@Suite("Cubic Bézier easing", .timeLimit(.minutes(2)))
struct CubicBezierEasingTests {
    static let curves: [(String, CubicBezierEasing)] = [
        ("linear", .linear), ("ease", .ease), ("ease-in", .easeIn), ("ease-out", .easeOut),
        ("ease-in-out", .easeInOut), ("steep middle", try! CubicBezierEasing(x1: 1, y1: 0, x2: 0, y2: 1)),
        ("flat start", try! CubicBezierEasing(x1: 0, y1: 0.9, x2: 0.1, y2: 1)),
        ("overshoot", try! CubicBezierEasing(x1: 0.3, y1: -0.6, x2: 0.7, y2: 1.6)),
    ]

    /// Newton (8 iterations, bisection fallback) against plain bisection at 1,001 points over
    /// the whole range: the solved t agrees within 1e-6 and y within 1e-6.
    @Test(arguments: curves.map(\.0))
    func newtonMatchesBisectionOverTheWholeRange(name: String) throws {
        let curve = try #require(Self.curves.first { $0.0 == name }?.1)
        var worst = 0.0
        for step in 0...1_000 {
            let x = Double(step) / 1_000
            guard x > 0, x < 1 else { continue }
            let reference = CubicBezierEasing.component(curve.bisect(x: x), curve.y1, curve.y2)
            worst = max(worst, abs(curve.value(at: x) - reference))
            #expect(abs(CubicBezierEasing.component(curve.solve(x: x), curve.x1, curve.x2) - x) < 1e-6)
        }
        #expect(worst < 1e-6, "\(name): max |y error| \(worst)")
    }

    @Test(arguments: curves.map(\.0))
    func endpointsAreExact(name: String) throws {
        let curve = try #require(Self.curves.first { $0.0 == name }?.1)
        #expect(curve.value(at: 0) == 0)
        #expect(curve.value(at: 1) == 1)
        #expect(curve.value(at: -0.5) == 0)
        #expect(curve.value(at: 1.5) == 1)
    }

    @Test func standardCurvesAtKnownPoints() {
        #expect(abs(CubicBezierEasing.linear.value(at: 0.3) - 0.3) < 1e-9)
        #expect(abs(CubicBezierEasing.easeInOut.value(at: 0.5) - 0.5) < 1e-9)
        // Known values of CSS `ease` (from browsers' reference tables).
        #expect(abs(CubicBezierEasing.ease.value(at: 0.5) - 0.8024033877399112) < 1e-6)
        #expect(abs(CubicBezierEasing.easeIn.value(at: 0.5) - 0.3153568) < 1e-6)
        #expect(CubicBezierEasing.easeIn.value(at: 0.25) < 0.25)
        #expect(CubicBezierEasing.easeOut.value(at: 0.25) > 0.25)
    }

    @Test func controlPointXMustBeWithinZeroToOne() throws {
        _ = try CubicBezierEasing(x1: 0, y1: -5, x2: 1, y2: 5)
        #expect(throws: CubicBezierEasing.ControlPointError.invalid(field: "x1", value: -0.001)) {
            try CubicBezierEasing(x1: -0.001, y1: 0, x2: 1, y2: 1)
        }
        #expect(throws: CubicBezierEasing.ControlPointError.invalid(field: "x2", value: 1.001)) {
            try CubicBezierEasing(x1: 0, y1: 0, x2: 1.001, y2: 1)
        }
        #expect(throws: CubicBezierEasing.ControlPointError.self) {
            try CubicBezierEasing(x1: 0.5, y1: .nan, x2: 0.5, y2: 1)
        }
    }
}
