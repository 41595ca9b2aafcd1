import Testing

@testable import SybilMotion

@Suite("Breathing scene grid", .timeLimit(.minutes(2)))
struct BreathingSceneGridRendererTests {
    func scene(at seconds: Double) -> BreathingScene {
        var configuration = BreathingScene.Configuration(width: 160, height: 96)
        configuration.textHeight = 4
        var scene = BreathingScene(configuration: configuration, theme: .dark)
        scene.advance(frame: FrameTick(timestamp: seconds, duration: 0))
        var elapsed = 0.0
        while elapsed < seconds {
            let step = min(0.25, seconds - elapsed)
            scene.advance(frame: FrameTick(timestamp: seconds, duration: step))
            elapsed += step
        }
        return scene
    }

    @Test func plainSnapshotAtRest() {
        let text = BreathingSceneGridRenderer(columns: 40, rows: 24, color: false).render(scene(at: 0))
        #expect(
            text == """
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                                        
                                        ~~~~~~~~~~~~    
                ~                  ~~~~~............~~~~
                .~~~~~~~    ~~~~~~~.....................
                --......~~~~......----------------------
                ..-------------breathe in...............
                .....-----------------------............
                -----.......................------------
                ---------------.................--------
                ...............-----------------........

                """)
    }

    @Test func colourAndPlainShareTheCharacters() {
        let scene = scene(at: 5)
        let colored = BreathingSceneGridRenderer(columns: 40, rows: 24, color: true).render(scene)
        let plain = BreathingSceneGridRenderer(columns: 40, rows: 24, color: false).render(scene)
        #expect(colored.replacing(/\x{1B}\[[0-9;]*m/, with: "") == plain)
        #expect(colored.contains("\u{1B}[0;38;2;"))
        #expect(!plain.contains("\u{1B}"))
        #expect(plain.contains("hold"))
    }
}
