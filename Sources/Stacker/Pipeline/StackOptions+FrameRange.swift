extension StackOptions {
    /// These options, for a run over `frameCount` frames, with every frame outside `frameRange` left out
    /// (`excludedFrames`, with a reason naming the slice), the reference
    /// too when the range does not hold it: it still fixes the grid. The
    /// options themselves when no range is set.
    func slicedToFrameRange(frameCount: Int) -> StackOptions {
        guard let range = frameRange else { return self }
        var sliced = self
        let reason = "outside the frames \(range.lowerBound):\(range.upperBound) of this run"
        for index in 0..<frameCount where !range.contains(index) {
            sliced.excludedFrames[index] = sliced.excludedFrames[index] ?? reason
        }
        return sliced
    }
}
