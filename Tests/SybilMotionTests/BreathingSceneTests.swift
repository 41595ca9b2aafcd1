import Foundation
import Testing

@testable import SybilMotion

@Suite("Breathing scene", .timeLimit(.minutes(2)))
struct BreathingSceneTests {
    func scene(width: Double = 320, height: Double = 96) -> BreathingScene {
        BreathingScene(configuration: .init(width: width, height: height), theme: .light)
    }

    @Test func horizonFollowsTheFormulaAtChosenPoints() {
        var scene = scene()
        scene.advance(frame: FrameTick(timestamp: 2.5, duration: 0))
        let configuration = scene.configuration
        for x in [0.0, 40, 123.5, 320] {
            let expected =
                scene.waterLevel + 5 * sin(configuration.angularFrequency * 2.5 + configuration.waveNumber * x)
            #expect(abs(scene.horizonY(atX: x) - expected) < 1e-12)
        }
        // A quarter wave: sin = 1 exactly where ωt + kx = π/2.
        var crest = self.scene()
        crest.advance(frame: FrameTick(timestamp: 0, duration: 0))
        #expect(abs(crest.horizonY(atX: 40) - (crest.waterLevel + 5)) < 1e-9)
    }

    @Test func horizonStaysWithinTheAmplitude() {
        var scene = scene()
        for tick in FrameTick.sequence(framesPerSecond: 30, count: 600) {
            scene.advance(frame: tick)
            for x in stride(from: 0.0, through: 320, by: 3.7) {
                #expect(abs(scene.horizonY(atX: x) - scene.waterLevel) <= 5 + 1e-12)
            }
        }
    }

    @Test func stateAdvancesByDurationAndPhaseByTimestamp() {
        var scene = scene()
        scene.advance(frame: FrameTick(timestamp: 100, duration: 1 / 60))
        #expect(scene.elapsed == 1.0 / 60)
        #expect(scene.timestamp == 100)
        // A skipped frame moves the sine to the new timestamp but the state by one duration.
        scene.advance(frame: FrameTick(timestamp: 100.5, duration: 1 / 60))
        #expect(abs(scene.elapsed - 2.0 / 60) < 1e-12)
        let configuration = scene.configuration
        #expect(
            abs(scene.horizonY(atX: 0) - scene.waterLevel - 5 * sin(configuration.angularFrequency * 100.5)) < 1e-12)
    }

    @Test func frameDurationsAreClampedAtTheBoundaries() {
        #expect(FrameTick(timestamp: 0, duration: 0.25).duration == 0.25)
        #expect(FrameTick(timestamp: 0, duration: 0.250_001).duration == 0.25)
        #expect(FrameTick(timestamp: 0, duration: 0.249).duration == 0.249)
        #expect(FrameTick(timestamp: 0, duration: -0.001).duration == 0)
        #expect(FrameTick(timestamp: .nan, duration: .infinity).duration == 0)
        #expect(FrameTick.sequence(framesPerSecond: 4, count: 3).map(\.timestamp) == [0, 0.25, 0.5])
    }

    @Test func threeRipplesAt120DegreesCalmMonotonicallyToTheFloor() {
        let ripples = scene().ripples
        #expect(ripples.map(\.frequency) == [1.5, 2.3, 3.1])
        #expect(abs(ripples[1].phase - ripples[0].phase - 2 * Double.pi / 3) < 1e-12)
        #expect(abs(ripples[2].phase - ripples[1].phase - 2 * Double.pi / 3) < 1e-12)
        for layer in ripples {
            #expect(layer.amplitude(elapsed: 0) == layer.initialAmplitude)
            #expect(abs(layer.amplitude(elapsed: 20) - (0.75 + 2.25 / M_E)) < 1e-12)
            var previous = Double.infinity
            for step in 0...2_000 {
                let amplitude = layer.amplitude(elapsed: Double(step) * 0.5)
                #expect(amplitude <= previous)
                #expect(amplitude >= layer.floorAmplitude)
                previous = amplitude
            }
            #expect(abs(layer.amplitude(elapsed: 1_000) - layer.floorAmplitude) < 1e-12)
        }
    }

    @Test func breathingPhasesMoveTheWaterLevel() {
        let cycle = BreathingCycle.standard
        #expect(cycle.phase(at: 0).phase == .inhale)
        #expect(cycle.phase(at: 3.999).phase == .inhale)
        #expect(cycle.phase(at: 4).phase == .hold)
        #expect(cycle.phase(at: 5.999).phase == .hold)
        #expect(cycle.phase(at: 6).phase == .exhale)
        #expect(cycle.phase(at: 11.999).phase == .exhale)
        #expect(cycle.phase(at: 12).phase == .inhale)
        var scene = scene()
        let rest = scene.waterLevel
        #expect(rest == 96 * 0.7)
        for tick in FrameTick.sequence(framesPerSecond: 10, count: 41) { scene.advance(frame: tick) }
        #expect(scene.phase == .hold)
        #expect(abs(scene.waterLevel - 96 * 0.5) < 1e-9)  // risen by the full swing
        #expect(throws: BreathingCycle.InvalidDurations.self) { try BreathingCycle(inhale: 0, hold: 1, exhale: 1) }
        #expect(throws: BreathingCycle.InvalidDurations.self) { try BreathingCycle(inhale: 1, hold: -0.1, exhale: 1) }
        #expect(throws: Never.self) { try BreathingCycle(inhale: 1, hold: 0, exhale: 1) }  // no hold is a rhythm
    }

    @Test func themesAreFactories() {
        #expect(BreathingTheme.forAppearance(.light) == .light)
        #expect(BreathingTheme.forAppearance(.dark) == .dark)
        #expect(BreathingTheme.light != BreathingTheme.dark)
        #expect(RGBAColor(hex: 0xFF8000).bytes == (255, 128, 0))
    }
}
