import Stacker

extension StackCommand {
    /// `--scale`, `--pixfrac`, `--drizzle-kernel`, `--sr-merge` and `--weight-map`.
    static func parseDrizzle(_ args: ParsedArguments, into s: inout Settings) throws {
        let scale = try args.value("--scale", { Double($0).flatMap { $0.isFinite && $0 >= 1 && $0 <= 4 ? $0 : nil } }, else: {
            "--scale needs a number from 1 to 4 such as 2, got '\($0)'" })
        let pixfrac = try args.value("--pixfrac", { Double($0).flatMap { $0.isFinite && $0 > 0 && $0 <= 1 ? $0 : nil } }, else: {
            "--pixfrac needs a number above 0 and at most 1 such as 0.6, got '\($0)'" })
        let kernel = try args.value("--drizzle-kernel", DrizzleKernel.init(rawValue:), else: {
            "unknown --drizzle-kernel '\($0)' (expected square or gaussian)" })
        let merge = try args.value("--sr-merge", SuperResolutionMerge.init(rawValue:), else: {
            "unknown --sr-merge '\($0)' (expected drizzle or kernel)" })
        let weightMap = args.values["--weight-map"]
        guard let scale, scale > 1 else {
            if pixfrac != nil || kernel != nil || weightMap != nil || merge != nil {
                throw UsageError(description: "--pixfrac, --drizzle-kernel, --sr-merge and --weight-map need --scale above 1")
            }
            return
        }
        if s.options.rejection == nil, s.options.mode == .median || s.options.mode == .mode {
            throw UsageError(description: "--scale works with --mode average or sigma-clip, or --reject, not --mode \(s.options.mode.rawValue)")
        }
        s.options.drizzle = DrizzleOptions(scale: scale, pixfrac: pixfrac ?? 1, kernel: kernel ?? .square, merge: merge ?? .drizzle)
        if let weightMap {
            guard let format = ImageFormat.fromExtension(of: weightMap), format != .jpeg else {
                throw UsageError(description: "--weight-map '\(weightMap)': use .png, .tif, .tiff, .fits, .fit or .fts (16-bit or float, not JPEG)")
            }
            s.weightMap = weightMap
        }
    }

    /// Writes a drizzle weight map: a float FITS as it is; a PNG or TIFF
    /// at 16 bits, divided by its largest weight.
    static func writeWeightMap(_ map: Image, to path: FilePath) throws {
        let format = ImageFormat.fromExtension(of: path)
        var image = map
        if format != .fits, let largest = map.planes[0].pixels.max(), largest > 0 {
            image.planes[0].pixels = map.planes[0].pixels.map { $0 / largest }
        }
        try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: format == .fits ? 32 : 16))
    }
}
