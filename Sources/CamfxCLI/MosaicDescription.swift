import Camfx
import CamfxCore
import CamfxMosaic

/// The `mosaic:` of a `camfx run` file, read and checked: which cameras, in what
/// layout, at what size, into which outputs, with whose sound.
///
///     mosaic:
///       layout: hstack            # grid, hstack, vstack, pip=CAMERA[:corner=br][:size=25%]
///       cameras: [front, back]    # optional: every camera, in the file's order
///       size: 2560x720            # optional: 1280x720
///       output: both.mp4          # or a list
///       audio: front              # optional: whose sound goes with it
///       x264-preset: veryfast     # optional: any record option of its encoding and outputs
///
/// This is the seam where the mosaic's recording attaches: `camfx run` reads and checks
/// it (and `--check` reports it), and refuses to run a file that has one until the
/// mosaic is recorded.
struct MosaicDescription {
  /// The cameras' names, in the layout's order.
  var cameras: [String]
  var layout: MosaicLayout
  var size: FrameGeometry
  var outputs: RecordingOutputPlan
  /// The camera whose sound goes with the mosaic; nil: silent.
  var audio: String?
  /// Its other keys, as `camfx record` arguments (`--x264-preset veryfast`, `--segment 10m`).
  var recordArguments: [String] = []
  /// The line of `mosaic:` in the file.
  var line: Int

  static let keys = ["layout", "cameras", "size", "output", "audio"]
  /// Record options that are not the mosaic's: its picture is its cameras', its sound
  /// is `audio:`'s, its size and outputs its own keys.
  static let notRecordOptions: Set<String> = [
    "source", "input", "layout", "mosaic-size", "size", "output", "audio", "realtime", "input-format", "preset",
    "control", "skip", "reconnect-timeout", "sample-rate", "channels",
  ]
  static let defaultSize = FrameGeometry(width: 1280, height: 720)
}
