import SceneGen
import Stacker

// A street scene made in memory: 9 frames with camera shake, noise and
// passers-by, and the truth they were rendered from.
var config = SceneConfig.street
config.width = 640
config.height = 480
config.frameCount = 9
let scene = SceneGenerator.render(config)

// Stacked with the median, which keeps what stays and drops what moves.
var options = StackOptions()
options.mode = .median
let result = try stack(scene.frames.map { .image($0) }, options: options)

// Written as a JPEG (the extension chooses the format).
try result.write(to: "clean.jpg")

// Scored against the truth, away from the edges the camera shake leaves.
let border = 10
let psnr = ImageMetrics.psnr(result.image, scene.groundTruth, border: border)
let ghost = ImageMetrics.ghostResidual(result.image, truth: scene.groundTruth,
                                       transientMask: scene.transientMask, border: border)
print("PSNR \(psnr) dB against the truth; ghost residual \(ghost) where objects passed")
