import ArgumentParser
import Camfx

/// The motion detector's settings, the same for `camfx record --motion` and `camfx
/// motion FILE` (which replays a movie through it to tune them).
struct MotionOptions: ParsableArguments {
  @Option(name: .customLong("motion-threshold"), help: ArgumentHelp(
    "Luma levels a pixel must change by, 1-255, or auto: five times the measured noise, at least 6 (default auto).",
    valueName: "n|auto"))
  var threshold: String?

  @Option(name: .customLong("motion-area"), help: ArgumentHelp(
    "How much of the watched picture must change for motion (default 0.5%).", valueName: "percent"))
  var area: String?

  @Option(name: .customLong("motion-frames"), help: ArgumentHelp(
    "Changed frames in a row that make motion; it begins at the first of them (default 2).", valueName: "n"))
  var frames: Int?

  @Option(name: .customLong("motion-light-switch"), help: ArgumentHelp(
    "When this much of the picture changes at once, learn it again instead of firing (default 60%).",
    valueName: "percent"))
  var lightSwitch: String?

  @Option(name: .customLong("motion-mask"), help: ArgumentHelp(
    "A PGM picture of the frame's size: white where motion counts, black where it is ignored.", valueName: "file.pgm"))
  var mask: String?

  @Option(name: .customLong("motion-ignore"), help: ArgumentHelp(
    "A part of the picture to ignore: a polygon 'X,Y X,Y X,Y ...' in pixels (repeatable).", valueName: "polygon"))
  var ignore: [String] = []

  @Option(name: .customLong("motion-zone"), help: ArgumentHelp(
    "A named zone with rules of its own, 'NAME:X,Y X,Y X,Y[:area=P%][:threshold=N]'; with zones, only motion in them counts (repeatable).",
    valueName: "zone"))
  var zones: [String] = []

  /// The options given, by name, for "needs --motion" messages.
  var given: [String] {
    [
      ("--motion-threshold", threshold != nil), ("--motion-area", area != nil), ("--motion-frames", frames != nil),
      ("--motion-light-switch", lightSwitch != nil), ("--motion-mask", mask != nil),
      ("--motion-ignore", !ignore.isEmpty), ("--motion-zone", !zones.isEmpty),
    ].filter(\.1).map(\.0)
  }

  /// The detector's options. Checked here as far as they can be without the picture;
  /// its size is checked when the detector is made.
  func options() throws -> MotionDetector.Options {
    var options = MotionDetector.Options()
    if let threshold, threshold != "auto" {
      options.threshold = try MotionDetector.Options.level(threshold, option: "--motion-threshold")
    }
    if let area { options.area = try MotionDetector.Options.percent(area, option: "--motion-area", range: 0.01...100) }
    if let frames {
      guard (1...300).contains(frames) else { throw MotionOptionError("--motion-frames '\(frames)' must be from 1 to 300") }
      options.frames = frames
    }
    if let lightSwitch {
      options.lightSwitch = try MotionDetector.Options.percent(lightSwitch, option: "--motion-light-switch", range: 1...100)
    }
    options.mask = try mask.map { try MotionMask(path: $0) }
    options.ignore = try ignore.map { text throws(MotionOptionError) in
      do {
        return try MotionPolygon(text)
      } catch {
        throw MotionOptionError("--motion-ignore: \(error)")
      }
    }
    options.zones = try zones.map { text throws(MotionOptionError) in
      do {
        return try MotionZone(text)
      } catch {
        throw MotionOptionError("--motion-zone: \(error)")
      }
    }
    return options
  }
}
