import ArgumentParser
import Camfx
import CamfxCapture
import CamfxMedia
import CamfxPNG
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `camfx snapshot`: one frame from a source, through the filter chain, into a PNG or
/// a JPEG (by the name's extension).
///
///     camfx snapshot --filter watermark --filter grayscale -o shot.png
///     camfx snapshot --source photo.png --filter mirror -y -o mirrored.png
struct SnapshotCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "snapshot",
    abstract: "Write one filtered frame as a PNG or a JPEG.",
    discussion: """
      The name's extension picks the format: .png (RGB, or RGBA when the frame has any \
      transparent pixel, or with --alpha) or .jpg/.jpeg (quality 90). It is written to \
      a temporary file and renamed into place, so a failed snapshot leaves no file behind.
      """)

  @Option(help: ArgumentHelp(
    "testsrc, a PNG file (repeated as frames) or a camera such as /dev/video0 (default: the first camera, else testsrc).",
    valueName: "source"))
  var source: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Frame size of the test pattern or camera (default 640x480). A PNG source has its own size.", valueName: "WxH"))
  var size: String?

  @Option(name: .customLong("filter"), help: ArgumentHelp(
    "NAME or NAME=KEY=VALUE:KEY=VALUE; repeat to chain, in order (see `camfx filters`).", valueName: "spec"))
  var filters: [String] = []

  @Option(parsing: .unconditional, help: ArgumentHelp("Which test-pattern frame to take (its counter shows it).", valueName: "n"))
  var frame: Int64 = 0

  @OptionGroup(title: "Camera options")
  var camera: CameraOptions

  @Flag(help: "Always write an RGBA PNG.")
  var alpha = false

  @Flag(name: [.customShort("y"), .long], help: "Replace the output file if it exists.")
  var overwrite = false

  @Option(name: [.short, .long], help: ArgumentHelp("The picture to write: a .png or .jpg name (strftime fields allowed).", valueName: "out.png"))
  var output: String

  func validate() throws {
    guard frame >= 0 else { throw ValidationError("--frame must be at least 0") }
  }

  func run() throws {
    // Everything that can be checked without touching the disk comes first.
    let geometry = try size.map { try FrameGeometry(parsing: $0, option: "--size") }
    let cameraSettings = try camera.settings()
    let sourceSpec = try source.map { try SourceSpec(parsing: $0) } ?? {
      let chosen = try SourceSpec.defaultSource()
      if chosen.isFallback { RecordCommand.printToStderr(SourceSpec.fallbackNote + "\n") }
      return chosen.spec
    }()
    let chain = try FilterRegistry.builtin.makeChain(filters)
    try NamePattern.check(output, option: "-o")
    let format = try SnapshotImageFormat(path: output)
    if alpha && format == .jpeg { throw RecordingOptionError("--alpha keeps transparency, which a JPEG cannot hold: give a .png name") }
    let destination = try OutputFile(path: NamePattern.expand(output, at: time(nil)), overwrite: overwrite)
    try destination.requireWritableDirectory()
    let picture = try Snapshot.take(
      sourceSpec, size: geometry, camera: cameraSettings, frame: frame, chain: chain,
      report: { printToStandardError("camfx: \($0)") })

    let keepAlpha = alpha || Self.hasTransparency(picture)
    // SIGINT/SIGTERM while the PNG is written would leave the hidden temporary file
    // behind: hold them until it is written, then delete it instead of renaming it.
    let interrupted = Atomic<Bool>(false)
    let signals = StopSignals { _, _ in interrupted.store(true, ordering: .relaxed) }
    defer { signals.cancel() }
    let staged = try destination.begin()
    do {
      try format.write(picture, to: staged.temporaryPath, alpha: keepAlpha)
    } catch {
      staged.discard()
      throw error
    }
    if interrupted.load(ordering: .relaxed) {
      staged.discard()
      throw SnapshotInterrupted()
    }
    try staged.commit()
  }

  /// True when any pixel's alpha is below 255.
  static func hasTransparency(_ frame: PixelBuffer) -> Bool {
    frame.withUnsafeBytes { base in
      for y in 0..<frame.height {
        let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        for x in 0..<frame.width where row[4 * x + 3] != 255 { return true }
      }
      return false
    }
  }
}

/// A stop signal arrived while the still was being written; nothing was kept.
struct SnapshotInterrupted: Error, CustomStringConvertible {
  var description: String { "interrupted; no snapshot written" }
}
