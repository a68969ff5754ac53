/// One frame made ready to be resampled onto the reference grid a band of
/// rows at a time, so a caller can consume each band while it is still in
/// cache (the average kernel folds it straight into its accumulator) instead
/// of holding a whole warped frame.
///
/// The samples are exactly those of `Warper.warp`, which is built on it: for
/// each reference pixel `(xr, yr)` the frame is sampled at
/// `transform.inverse(xr, yr)`, with 0 and coverage 0 outside the frame.
/// Rows are independent, so any split into bands gives the same samples.
/// With a displacement field (`--align local`) the frame is sampled at
/// `transform.inverse(xr + dx, yr + dy)`, `(dx, dy)` the field there.
public struct RowWarper: Sendable {
    /// Width of the reference grid.
    public let width: Int
    /// Height of the reference grid.
    public let height: Int
    // `channels`: number of planes (channels) warped per row.

    private enum Method: Sendable {
        case translation(TranslationPlan)
        case general(matrix: [Double], field: DisplacementField?)
        case twoPass(TwoPassWarp)
        /// A field warp whose global transform `TwoPassWarp` admits: the
        /// parts of each row where the field is 0 in two passes, the rest
        /// through the general warp with the field.
        case twoPassField(TwoPassWarp, matrix: [Double], field: DisplacementField)
    }
    /// The frame's samples: floats, or 8-bit samples read as they are.
    private enum Sources: Sendable {
        case floats([[Float]])
        case bytes([[UInt8]])
    }
    private let sources: Sources
    public let channels: Int
    private var method: Method
    private let geometry: FrameGeometry
    private let interpolation: Interpolation

    /// Prepares `planes` (one frame's channels, all the same non-empty size)
    /// for warping by `transform` (frame → reference) onto a `width` ×
    /// `height` grid; nil when there is nothing to sample (no planes, an
    /// empty frame, or a singular transform). A `field` adds its residual
    /// displacements after the transform.
    public init?(_ planes: [Plane], by transform: Transform, field: DisplacementField? = nil, width: Int, height: Int,
                 interpolation: Interpolation = .lanczos3) {
        guard let first = planes.first, first.count > 0 else { return nil }
        self.init(.floats(planes.map(\.pixels)), sizes: planes.map { ($0.width, $0.height) }, by: transform,
                  field: field, width: width, height: height, interpolation: interpolation)
    }

    /// Prepares 8-bit `planes` for warping, as the float init does for
    /// `planes.map(\.floats)`. Every transform reads the bytes as it warps
    /// (one byte held per sample; the result agrees with the float path to
    /// float rounding; integer shifts and `.nearest` copy exactly).
    public init?(_ planes: [BytePlane], by transform: Transform, field: DisplacementField? = nil, width: Int,
                 height: Int, interpolation: Interpolation = .lanczos3) {
        guard let first = planes.first, first.count > 0 else { return nil }
        self.init(.bytes(planes.map(\.pixels)), sizes: planes.map { ($0.width, $0.height) }, by: transform,
                  field: field, width: width, height: height, interpolation: interpolation)
    }

    /// The common part of both inits: `sizes` are the planes' (width, height).
    private init?(_ sources: Sources, sizes: [(Int, Int)], by transform: Transform, field: DisplacementField?,
                  width: Int, height: Int, interpolation: Interpolation) {
        guard let first = sizes.first, let inverse = transform.inverse else { return nil }
        for p in sizes {
            precondition(p == first, "Warper: planes of one frame must share a size (\(p.0)×\(p.1) vs \(first.0)×\(first.1))")
        }
        self.width = max(0, width)
        self.height = max(0, height)
        self.sources = sources
        self.channels = sizes.count
        self.geometry = FrameGeometry(width: first.0, height: first.1)
        self.interpolation = interpolation
        if inverse.isTranslation && field == nil {
            method = .translation(TranslationPlan(sx: inverse.matrix[2], sy: inverse.matrix[5], width: self.width,
                                                  height: self.height, geometry: geometry, interpolation: interpolation))
        } else {
            method = .general(matrix: inverse.matrix, field: field)
        }
    }

    /// This warper, resampling a near-identity projective transform in two
    /// 1-D passes across 8 pixels at a time (`TwoPassWarp`) instead of a
    /// window per pixel; itself for a translation, a field, `.nearest`, or a
    /// transform outside `TwoPassWarp`'s admissible set. The coverage is
    /// the same; the samples differ from the general warp's by the kernel's
    /// shear along the rows' frame lines (`TwoPassWarpTests` measures it).
    ///
    /// With a displacement field, the parts of each row where the field is
    /// exactly 0 (its tiles kept the global transform, as most do without
    /// parallax) and at least `TwoPassWarp.minimumFieldPart` long take the
    /// two passes, and the rest the general warp through the field.
    public func resamplingInTwoPasses() -> RowWarper {
        guard case .general(let matrix, let field) = method,
              let plan = TwoPassWarp(inverse: matrix, geometry: geometry, width: width, height: height,
                                     interpolation: interpolation) else { return self }
        var warper = self
        warper.method = field.map { .twoPassField(plan, matrix: matrix, field: $0) } ?? .twoPass(plan)
        return warper
    }

    /// Whether `warp` runs the two passes of `resamplingInTwoPasses` (on
    /// every row, or with a field on its parts where the field is 0).
    public var resamplesInTwoPasses: Bool {
        switch method {
        case .twoPass, .twoPassField: return true
        case .translation, .general: return false
        }
    }

    /// The columns of reference row `y` the frame covers, when that is known
    /// without looking at the coverage `warp` writes: for a translation the
    /// covered region is a rectangle, for the two passes of a near-identity
    /// projective map one run per row (`TwoPassWarp`), and this is exactly
    /// where its coverage is 1 (empty where the row is not covered). Nil for
    /// other transforms, whose coverage must be read.
    public func coveredColumns(row y: Int) -> Range<Int>? {
        switch method {
        case .translation(let plan): return plan.coveredY.contains(y) ? plan.coveredX : 0..<0
        case .twoPass(let plan): return plan.coveredColumns(row: y)
        case .general, .twoPassField: return nil
        }
    }

    /// Whether `coveredColumns` answers for every row (a translation, or
    /// two passes), so a caller may pass no coverage buffer to `warp`.
    public var knowsCoveredColumns: Bool {
        switch method {
        case .translation, .twoPass: return true
        case .general, .twoPassField: return false
        }
    }

    /// Whether the warper reads its frame's 8-bit samples as they are (an
    /// 8-bit frame), so it holds one byte per sample.
    public var readsBytes: Bool {
        if case .bytes = sources { return true }
        return false
    }

    /// Bytes of samples the warper holds: its frame's planes.
    public var heldBytes: Int {
        switch sources {
        case .floats(let planes): return planes.reduce(0) { $0 + $1.count * MemoryLayout<Float>.stride }
        case .bytes(let planes): return planes.reduce(0) { $0 + $1.count }
        }
    }

    /// Writes reference rows `rows` of every plane into `outputs` (one per
    /// plane) and their coverage (1 where the sample point lies inside the
    /// frame, else 0) into `coverage`. Each buffer holds `rows.count ×
    /// width` floats, row `rows.lowerBound` first. Safe to call from several
    /// threads for disjoint buffers. A caller that takes the covered columns
    /// from `coveredColumns` (`knowsCoveredColumns`) may pass nil for
    /// `coverage` (then it is not written); other transforms need it.
    package func warp(rows: Range<Int>, into outputs: [UnsafeMutablePointer<Float>],
                     coverage: UnsafeMutablePointer<Float>?) {
        precondition(outputs.count == channels, "RowWarper: \(outputs.count) outputs for \(channels) planes")
        precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "RowWarper: rows \(rows) outside 0..<\(height)")
        guard !rows.isEmpty, width > 0 else { return }
        switch (method, sources) {
        case (.translation(let plan), .floats(let planes)):
            for (source, output) in zip(planes, outputs) { plan.run(rows: rows, source: source, output: output) }
            if let coverage { plan.coverage(rows: rows, into: coverage) }
        case (.translation(let plan), .bytes(let planes)):
            for (source, output) in zip(planes, outputs) { plan.run(rows: rows, source: source, output: output) }
            if let coverage { plan.coverage(rows: rows, into: coverage) }
        case (.general(let matrix, let field), .floats(let sources)):
            generalWarp(rows: rows, matrix: matrix, field: field, sources: sources, outputs: outputs, coverage: coverage)
        case (.general(let matrix, let field), .bytes(let sources)):
            generalWarp(rows: rows, matrix: matrix, field: field, sources: sources, outputs: outputs, coverage: coverage)
        case (.twoPass(let plan), .floats(let sources)):
            twoPassWarp(rows: rows, plan: plan, sources: sources, outputs: outputs, coverage: coverage)
        case (.twoPass(let plan), .bytes(let sources)):
            twoPassWarp(rows: rows, plan: plan, sources: sources, outputs: outputs, coverage: coverage)
        case (.twoPassField(let plan, let matrix, let field), .floats(let sources)):
            twoPassFieldWarp(rows: rows, plan: plan, matrix: matrix, field: field, sources: sources, outputs: outputs,
                             coverage: coverage)
        case (.twoPassField(let plan, let matrix, let field), .bytes(let sources)):
            twoPassFieldWarp(rows: rows, plan: plan, matrix: matrix, field: field, sources: sources, outputs: outputs,
                             coverage: coverage)
        }
    }

    /// `warp` for a general transform: zeroes the band, then samples it per pixel.
    private func generalWarp<S: PlaneSample>(rows: Range<Int>, matrix: [Double], field: DisplacementField?,
                                             sources: [[S]], outputs: [UnsafeMutablePointer<Float>],
                                             coverage: UnsafeMutablePointer<Float>?) {
        guard let coverage else { preconditionFailure("RowWarper: a general warp needs its coverage buffer") }
        let n = rows.count * width
        for output in outputs { output.update(repeating: 0, count: n) }
        coverage.update(repeating: 0, count: n)
        GeneralWarp.run(rows: rows, width: width, matrix: matrix, geometry: geometry, interpolation: interpolation,
                        sources: sources, outputs: outputs, coverage: coverage, field: field)
    }

    /// `warp` through a field whose global transform admits two passes:
    /// zeroes the band, then takes each row's parts where the field is 0 in
    /// two passes and the others through the general warp with the field.
    private func twoPassFieldWarp<S: PlaneSample>(rows: Range<Int>, plan: TwoPassWarp, matrix: [Double],
                                                  field: DisplacementField, sources: [[S]],
                                                  outputs: [UnsafeMutablePointer<Float>],
                                                  coverage: UnsafeMutablePointer<Float>?) {
        guard let coverage else { preconditionFailure("RowWarper: a field warp needs its coverage buffer") }
        let n = rows.count * width
        for output in outputs { output.update(repeating: 0, count: n) }
        coverage.update(repeating: 0, count: n)
        let w = width, first = rows.lowerBound
        let zero = rows.map { field.row(Double($0)).zeroParts(width: w, minimum: TwoPassWarp.minimumFieldPart) }
        plan.run(rows: rows, sources: sources, outputs: outputs, coverage: coverage, columns: { zero[$0 - first] })
        GeneralWarp.run(rows: rows, width: width, matrix: matrix, geometry: geometry, interpolation: interpolation,
                        sources: sources, outputs: outputs, coverage: coverage, field: field,
                        columns: { FieldRow.complement(of: zero[$0 - first], width: w) })
    }

    /// `warp` in two passes: the covered runs resampled, the rest of each
    /// row zeroed (each sample written once).
    private func twoPassWarp<S: PlaneSample>(rows: Range<Int>, plan: TwoPassWarp, sources: [[S]],
                                             outputs: [UnsafeMutablePointer<Float>], coverage: UnsafeMutablePointer<Float>?) {
        plan.run(rows: rows, sources: sources, outputs: outputs, coverage: coverage, zeroing: true)
    }
}
