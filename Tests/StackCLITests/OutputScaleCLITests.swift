import Foundation
import Testing
import Registration
import Stacker
import TestSupport

/// `--output-scale` and the narrow-range warning, through the command line.
@Suite("Output scale on the command line")
struct OutputScaleCLITests {
    @Test("narrow 16-bit FITS: one warning line by default; --output-scale data writes the full range without it; a bad value is a usage error")
    func narrowFITS() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { TestFiles.remove(dir) }
        // Two gray frames spanning 0.02…0.05 of the 16-bit range (1311…3277 ADU).
        var paths: [String] = []
        for k in 0..<2 {
            let pixels = (0..<(48 * 32)).map { i -> Float in
                let x = Double(i % 48) / 47
                return Float(0.02 + 0.03 * x + 0.0005 * Double(k))
            }
            let image = Image(width: 48, height: 32, planes: [Plane(width: 48, height: 32, pixels: pixels)])
            let path = dir + "/narrow\(k).fits"
            try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: 16))
            paths.append(path)
        }
        let native = try CLIHarness.run(["--align", "none", "-o", dir + "/native.fits"] + paths)
        #expect(native.status == 0, "\(native.stderr)")
        let warnings = native.stderr.split(separator: "\n").filter { $0.contains("under 1/16 of the range") }
        #expect(warnings.count == 1 && warnings[0].contains("narrow0.fits") && warnings[0].contains("--output-scale data"), "\(native.stderr)")

        let data = try CLIHarness.run(["--align", "none", "--output-scale", "data", "--report", dir + "/run.json",
                                       "-o", dir + "/data.fits"] + paths)
        #expect(data.status == 0, "\(data.stderr)")
        #expect(!data.stderr.contains("under 1/16"), "\(data.stderr)")
        let stretched = try ImageFile.read(dir + "/data.fits").image.planes[0].pixels
        #expect(stretched.min() == 0 && stretched.max() == 1, "\(stretched.min()!)…\(stretched.max()!)")
        let report = try String(contentsOfFile: dir + "/run.json", encoding: .utf8)
        #expect(report.contains("\"outputScale\": \"data\"") && report.contains("\"dataRange\""))

        let bad = try CLIHarness.run(["--output-scale", "wide", "-o", dir + "/x.fits"] + paths)
        #expect(bad.status == 2 && bad.stderr.contains("unknown --output-scale 'wide'"), "\(bad.stderr)")
    }
}
