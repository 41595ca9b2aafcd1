import Testing

@testable import SybilMotion

@Suite("Text crossing", .timeLimit(.minutes(2)))
struct TextCrossingTests {
    @Test func masksSumToTheTextBoundsInTheTextsOwnCoordinates() {
        // The text sits at (40, 100) in the scene; the horizon at scene y 110.
        let frame = MotionRect(x: 40, y: 100, width: 44, height: 16)
        let (sky, water) = TextCrossing.masks(textFrame: frame, horizonY: 110)
        #expect(sky == MotionRect(x: 0, y: 0, width: 44, height: 10))
        #expect(water == MotionRect(x: 0, y: 10, width: 44, height: 6))
        #expect(sky.height + water.height == frame.height)
        #expect(sky.maxY == water.y)
    }

    @Test func masksSwapAsTheTextCrosses() {
        let frame = MotionRect(x: 7, y: 50, width: 20, height: 8)
        // Horizon below the text: all sky. At the bottom edge: still all sky; one point up: not.
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 70).water.isEmpty)
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 58).water.isEmpty)
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 57).water.height == 1)
        // Horizon above the text: all water. At the top edge too; one point down: not.
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 10).sky.isEmpty)
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 50).sky.isEmpty)
        #expect(TextCrossing.masks(textFrame: frame, horizonY: 51).sky.height == 1)
        for horizon in stride(from: 40.0, through: 70, by: 0.5) {
            let (sky, water) = TextCrossing.masks(textFrame: frame, horizonY: horizon)
            #expect(sky.height + water.height == 8)
            #expect(sky.x == 0 && water.x == 0 && sky.y == 0)
        }
    }

    @Test func conversionMovesTheOriginToTheFramesTopLeft() {
        let inScene = MotionRect(x: 50, y: 120, width: 10, height: 5)
        #expect(
            inScene.converted(intoCoordinatesOf: MotionRect(x: 40, y: 100, width: 44, height: 16))
                == MotionRect(x: 10, y: 20, width: 10, height: 5))
    }

    @Test func sceneMasksFollowTheHorizonEveryFrame() {
        var scene = BreathingScene(configuration: .init(width: 320, height: 96), theme: .light)
        var sawWater = false
        var sawSky = false
        var sawSplit = false
        for tick in FrameTick.sequence(framesPerSecond: 30, count: 360) {
            scene.advance(frame: tick)
            let crossing = scene.textCrossing
            let horizon = scene.horizonY(atX: crossing.frame.midX)
            #expect(abs(crossing.skyMask.height + crossing.waterMask.height - crossing.frame.height) < 1e-9)
            let expectedSky = min(max(horizon - crossing.frame.y, 0), crossing.frame.height)
            #expect(abs(crossing.skyMask.height - expectedSky) < 1e-9)
            sawWater = sawWater || crossing.skyMask.isEmpty
            sawSky = sawSky || crossing.waterMask.isEmpty
            sawSplit = sawSplit || (!crossing.skyMask.isEmpty && !crossing.waterMask.isEmpty)
        }
        #expect(sawWater && sawSky && sawSplit)
    }

    @Test func crossingUsesTheFasterCurveAndMovesFaster() {
        let path = TextCrossing(textWidth: 44, textHeight: 8, amplitude: 5, margin: 8)
        #expect(path.region(fullness: 0.1) == (.water, .easeInOut))
        #expect(path.region(fullness: 0.5) == (.crossing, .linear))
        #expect(path.region(fullness: 0.9) == (.sky, .easeInOut))
        // Boundaries: 0.4 and 0.6 are the crossing's ends.
        #expect(path.region(fullness: 0.399).region == .water)
        #expect(path.region(fullness: 0.4).region == .crossing)
        #expect(path.region(fullness: 0.6).region == .crossing)
        #expect(path.region(fullness: 0.601).region == .sky)
        let crossingSpeed = (path.rise(fullness: 0.6) - path.rise(fullness: 0.4)) / 0.2
        let waterSpeed = (path.rise(fullness: 0.4) - path.rise(fullness: 0)) / 0.4
        let skySpeed = (path.rise(fullness: 1) - path.rise(fullness: 0.6)) / 0.4
        #expect(crossingSpeed > 2 * waterSpeed)
        #expect(crossingSpeed > 2 * skySpeed)
        // Continuous at the joins, and wholly clear of the horizon band outside the crossing.
        #expect(abs(path.rise(fullness: 0.4) - -9) < 1e-9)
        #expect(abs(path.rise(fullness: 0.6) - 9) < 1e-9)
        #expect(path.rise(fullness: 0) == -17 && path.rise(fullness: 1) == 17)
    }
}
