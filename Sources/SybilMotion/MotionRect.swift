/// An axis-aligned rectangle in points; y grows downwards (as in UIKit and on a terminal).
public struct MotionRect: Sendable, Hashable {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The width (≥ 0).
    public var width: Double
    /// The height (≥ 0).
    public var height: Double

    /// A rectangle at (x, y) of the given size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The bottom edge.
    public var maxY: Double { y + height }
    /// The right edge.
    public var maxX: Double { x + width }
    /// The horizontal centre.
    public var midX: Double { x + width / 2 }
    /// Whether the rectangle has no area.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// This rectangle, given in scene coordinates, expressed in the coordinates of a view
    /// whose frame (in the scene) is `frame`: the origin moves to the frame's top-left.
    public func converted(intoCoordinatesOf frame: MotionRect) -> MotionRect {
        MotionRect(x: x - frame.x, y: y - frame.y, width: width, height: height)
    }

    /// Whether `(px, py)` lies inside (left and top edges included).
    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }
}
