/// A CSS-style cubic Bézier timing curve from (0, 0) to (1, 1) with control points
/// (x1, y1) and (x2, y2). ``value(at:)`` solves x(t) = x for t by Newton's method, 8
/// iterations from t = x, and falls back to bisection when the derivative is nearly zero or
/// Newton has not converged to 1e-7; then returns y(t). The endpoints are exactly 0 and 1.
public struct CubicBezierEasing: Sendable, Hashable {
    /// Why control points were refused.
    public enum ControlPointError: Error, Sendable, Hashable, CustomStringConvertible {
        /// x1 or x2 is outside 0…1 (the curve would not be a function of x), or a value is
        /// not finite.
        case invalid(field: String, value: Double)

        /// One sentence naming the field and its value.
        public var description: String {
            switch self {
            case .invalid(let field, let value):
                return "Bézier control point \(field) is \(value); x values must be in 0...1 and all values finite."
            }
        }
    }

    /// Newton iterations per solve.
    public static let newtonIterations = 8
    /// Bisection steps in the fallback (resolution 2⁻⁴⁰).
    static let bisectionSteps = 40

    /// The first control point.
    public let x1: Double, y1: Double
    /// The second control point.
    public let x2: Double, y2: Double

    /// A curve through the given control points; x1 and x2 must be in 0…1 and all finite.
    public init(x1: Double, y1: Double, x2: Double, y2: Double) throws(ControlPointError) {
        for (field, value) in [("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)] where !value.isFinite {
            throw .invalid(field: field, value: value)
        }
        guard (0...1).contains(x1) else { throw .invalid(field: "x1", value: x1) }
        guard (0...1).contains(x2) else { throw .invalid(field: "x2", value: x2) }
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
    }

    /// The identity.
    public static let linear = try! CubicBezierEasing(x1: 0, y1: 0, x2: 1, y2: 1)
    /// CSS `ease`.
    public static let ease = try! CubicBezierEasing(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)
    /// CSS `ease-in`.
    public static let easeIn = try! CubicBezierEasing(x1: 0.42, y1: 0, x2: 1, y2: 1)
    /// CSS `ease-out`.
    public static let easeOut = try! CubicBezierEasing(x1: 0, y1: 0, x2: 0.58, y2: 1)
    /// CSS `ease-in-out`.
    public static let easeInOut = try! CubicBezierEasing(x1: 0.42, y1: 0, x2: 0.58, y2: 1)

    /// The eased value at progress `x` (clamped to 0…1); exactly 0 at 0 and 1 at 1.
    public func value(at x: Double) -> Double {
        guard x > 0 else { return 0 }
        guard x < 1 else { return 1 }
        return Self.component(solve(x: x), y1, y2)
    }

    /// The parameter t with x(t) = x.
    func solve(x: Double) -> Double {
        var t = x
        for _ in 0..<Self.newtonIterations {
            let error = Self.component(t, x1, x2) - x
            let slope = Self.derivative(t, x1, x2)
            if abs(slope) < 1e-6 { return bisect(x: x) }
            t -= error / slope
            if !(0...1).contains(t) { return bisect(x: x) }
        }
        return abs(Self.component(t, x1, x2) - x) < 1e-7 ? t : bisect(x: x)
    }

    /// Solves x(t) = x by halving 0…1 (x(t) is non-decreasing when x1, x2 are in 0…1).
    func bisect(x: Double) -> Double {
        var low = 0.0
        var high = 1.0
        for _ in 0..<Self.bisectionSteps {
            let middle = (low + high) / 2
            if Self.component(middle, x1, x2) < x { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// One coordinate of the curve: 3(1−t)²t·p1 + 3(1−t)t²·p2 + t³.
    static func component(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
    }

    /// Its derivative in t.
    static func derivative(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2)
    }
}
