extension StackOptions {
    /// Why the options ask for per-frame measures the run will not take
    /// (`--weights fwhm|stars`, `--keep-by`), or nil when they are
    /// consistent. Stars are measured only by star alignment
    /// (`alignment.usesStars`) and not when the transforms are given
    /// (`transformsGiven`: `givenTransforms`, `--transforms`); the
    /// background is measured by star alignment, calibration or
    /// normalisation. `--keep-by` needs `--keep`.
    public func starMeasureConflict(transformsGiven: Bool) -> String? {
        let starsMeasured = alignment.usesStars && !transformsGiven
        let how = "use --align stars or stars-affine" + (transformsGiven ? ", without --transforms" : "")
        if weighting.usesStars && !starsMeasured {
            return "--weights \(weighting.rawValue) needs star measures: \(how)"
        }
        guard let measure = keepBy else { return nil }
        if keep == nil { return "--keep-by \(measure.rawValue) needs --keep N or --keep P%" }
        if measure.usesStars && !starsMeasured {
            return "--keep-by \(measure.rawValue) needs star measures: \(how)"
        }
        if measure == .background && !(alignment.usesStars || !calibration.isEmpty || normalization != .none) {
            return "--keep-by background needs the frames' background measured: use --align stars, calibration frames or --normalize"
        }
        return nil
    }
}
