/// Finds and measures stars on a single-channel plane.
///
/// Method:
/// 1. **Background.** Sky level and noise σ on a mesh of
///    `backgroundCellSize` cells (sigma-clipped median and 1.4826 · MAD,
///    3 × 3 median filtered, bilinear; `BackgroundMesh`).
/// 2. **Seeds.** One pass over the pixels: a pixel is a seed when it exceeds
///    `level + detectionSigma · σ` and is the maximum of its 3 × 3
///    neighbourhood (ties go to the first pixel in scan order, so a flat top
///    yields one seed). Pixels within `borderMargin` of an edge are skipped.
/// 3. **Measurement.** Seeds are measured brightest first
///    (`StarMeasurement`: adaptive Gaussian moments) and rejected when
///    saturated or flat-topped (unless `includeSaturated`: then flagged),
///    unsupported by their neighbours (hot pixels,
///    cosmic rays), too narrow or wide, elongated (trails), too faint in the
///    matched filter (noise peaks), or too close to the border.
/// 4. **Selection.** Stars closer than `minimumSeparation` FWHM to a
///    brighter star are dropped, and the brightest `maximumStars` by flux
///    are returned, brightest first.
///
/// Cost is linear in the pixels plus a little per seed: the background mesh
/// is the larger part, then the seed scan. See `docs/star-alignment.md`.
public enum StarDetector {
    /// At most this many seeds per requested star are measured (brightest
    /// peaks first): enough to replace the seeds the tests reject, and the
    /// cost stays bounded on frames full of noise peaks or trail pixels.
    static let seedsPerStar = 8
    /// At most this many saturated stars are returned with
    /// `includeSaturated` (the brightest; only the pattern matching uses them).
    public static let maximumSaturated = 100

    /// The stars of `plane`, brightest (by flux) first.
    ///
    /// - Parameters:
    ///   - plane: a single-channel plane (any range; saturation is judged
    ///     against `options.saturationLevel`, 0.99 by default for 0…1 data).
    ///   - options: detection constants.
    /// - Returns: at most `options.maximumStars` unsaturated stars (plus up
    ///   to `maximumSaturated` saturated ones, flagged, with
    ///   `options.includeSaturated`); empty for a blank,
    ///   star-less or tiny plane. Positions use the `Plane` convention
    ///   (pixel centres at integers, origin top-left, y down).
    public static func detect(_ plane: Plane, options: StarDetectionOptions = .init()) -> [Star] {
        let w = plane.width, h = plane.height
        let margin = options.borderMargin
        guard w > 2 * margin + 2, h > 2 * margin + 2 else { return [] }
        let mesh = BackgroundMesh(plane: plane, cellSize: options.backgroundCellSize)
        let seeds = Self.seeds(plane, mesh: mesh, options: options)

        // Measure the brightest seeds first.
        var ranked: [(index: Int, height: Float)] = []
        ranked.reserveCapacity(seeds.count)
        for s in seeds {
            let x = s % w, y = s / w
            let level = mesh.value(x: Double(x), y: Double(y)).level
            ranked.append((s, plane.pixels[s] - Float(level)))
        }
        ranked.sort { $0.height > $1.height }
        let budget = options.maximumStars * Self.seedsPerStar + (options.includeSaturated ? Self.maximumSaturated : 0)
        var stars: [Star] = []
        stars.reserveCapacity(min(ranked.count, budget))
        plane.pixels.withUnsafeBufferPointer { p in
            for s in ranked.prefix(budget) {
                let x = s.index % w, y = s.index / w
                let bg = mesh.value(x: Double(x), y: Double(y))
                guard let star = StarMeasurement.measure(p, width: w, height: h, px: x, py: y,
                                                         background: bg.level, noise: bg.noise, options: options)
                else { continue }
                let m = Double(margin)
                guard star.x >= m, star.y >= m, star.x <= Double(w - 1) - m, star.y <= Double(h - 1) - m else { continue }
                stars.append(star)
            }
        }
        stars.sort { $0.flux > $1.flux }
        var unsaturated = 0, saturated = 0
        return Self.separated(stars, minimumSeparation: options.minimumSeparation).filter { s in
            if s.isSaturated { saturated += 1; return saturated <= Self.maximumSaturated }
            unsaturated += 1
            return unsaturated <= options.maximumStars
        }
    }

    /// Indices (`y · width + x`) of the pixels above the threshold that are
    /// maxima of their 3 × 3 neighbourhood, in scan order. One pass; the
    /// threshold row is blended from two precomputed mesh rows.
    static func seeds(_ plane: Plane, mesh: BackgroundMesh, options: StarDetectionOptions) -> [Int] {
        let w = plane.width, h = plane.height, margin = options.borderMargin
        let rows = mesh.thresholdRows(width: w, sigmas: options.detectionSigma)
        var seeds: [Int] = []
        seeds.reserveCapacity(1024)
        plane.pixels.withUnsafeBufferPointer { p in
            rows.withUnsafeBufferPointer { t in
                for y in margin..<(h - margin) {
                    let (j, fy) = BackgroundMesh.bracket(Double(y), size: mesh.cellHeight, cells: mesh.cellsY)
                    let j1 = min(j + 1, mesh.cellsY - 1)
                    let a = j * w, b = j1 * w, f = Float(fy)
                    let row = y * w
                    for x in margin..<(w - margin) {
                        let v = p[row + x]
                        let ta = t[a + x]
                        guard v > ta + f * (t[b + x] - ta) else { continue }
                        let up = row - w + x, down = row + w + x
                        // Strict against pixels already scanned, ≥ against later ones.
                        guard v > p[row + x - 1], v >= p[row + x + 1],
                              v > p[up - 1], v > p[up], v > p[up + 1],
                              v >= p[down - 1], v >= p[down], v >= p[down + 1] else { continue }
                        seeds.append(row + x)
                    }
                }
            }
        }
        return seeds
    }

    /// `stars` (brightest first) without those closer than
    /// `minimumSeparation` × the brighter star's FWHM to a brighter kept star.
    /// A hash grid keeps it linear.
    static func separated(_ stars: [Star], minimumSeparation: Double) -> [Star] {
        guard minimumSeparation > 0, stars.count > 1 else { return stars }
        let maxFWHM = stars.reduce(0) { max($0, $1.fwhm) }
        let cell = max(1, minimumSeparation * maxFWHM)
        var grid: [SIMD2<Int>: [Int]] = [:]
        var kept: [Star] = []
        kept.reserveCapacity(stars.count)
        for s in stars {
            let gx = Int((s.x / cell).rounded(.down)), gy = Int((s.y / cell).rounded(.down))
            var clash = false
            search: for j in (gy - 1)...(gy + 1) {
                for i in (gx - 1)...(gx + 1) {
                    for k in grid[SIMD2(i, j)] ?? [] {
                        let o = kept[k]
                        let dx = o.x - s.x, dy = o.y - s.y
                        let limit = minimumSeparation * o.fwhm
                        if dx * dx + dy * dy < limit * limit { clash = true; break search }
                    }
                }
            }
            if clash { continue }
            grid[SIMD2(gx, gy), default: []].append(kept.count)
            kept.append(s)
        }
        return kept
    }
}

// References
// - E. Bertin and S. Arnouts, "SExtractor: Software for source extraction",
//   Astronomy and Astrophysics Supplement 117, 393–404, 1996.
// - P. B. Stetson, "DAOPHOT: a computer program for crowded-field stellar
//   photometry", PASP 99, 191–222, 1987 (peak finding, sharpness and
//   roundness tests against hot pixels and blends).
