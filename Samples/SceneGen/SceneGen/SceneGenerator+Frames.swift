public import Stacker

extension SceneGenerator {
    /// Renders the scene frame by frame and hands each frame, in order, to
    /// `body`, holding one frame in memory at a time: the frames are those
    /// `render(_:)` and `write(_:to:format:quality:)` make, for writers of
    /// other containers (a SER video, say).
    /// - Returns: the true shifts, frame 0 first.
    /// - Throws: what `body` throws (rendering stops there).
    @discardableResult
    public static func forEachFrame(_ config: SceneConfig, _ body: (_ index: Int, _ frame: Image) throws -> Void) rethrows -> [FrameShift] {
        let plan = ScenePlan(config)
        for i in 0..<plan.config.frameCount {
            try body(i, plan.frame(i).image)
        }
        return plan.shifts
    }
}
