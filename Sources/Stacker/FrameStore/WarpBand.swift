/// Float rows a frame is warped into before its samples are quantised into
/// a frame store: a band of `rows` rows of `width` samples per channel, and
/// one of coverage. Made once per caller (one `store` call, one reduce
/// thread), never per band.
final class WarpBand {
    /// Rows per band: about 16 K samples per channel (64 KB), so a band is
    /// still in cache when it is quantised.
    let rows: Int
    /// One band per channel.
    let planes: [UnsafeMutablePointer<Float>]
    /// The band's coverage (written only for warps whose covered columns
    /// are not known per row).
    let mask: UnsafeMutablePointer<Float>
    private let memory: UnsafeMutablePointer<Float>

    /// A band for `channels` planes of `width`, at most `maxRows` rows.
    init(width: Int, channels: Int, maxRows: Int) {
        let w = max(1, width)
        rows = max(1, min(maxRows, 16_384 / w))
        let pass = rows * w
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: (channels + 1) * pass)
        self.memory = memory
        planes = (0..<channels).map { memory + $0 * pass }
        mask = memory + channels * pass
    }

    deinit { memory.deallocate() }
}
