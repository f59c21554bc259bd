import ArgumentParser
import Camfx

/// `camfx run FILE.yml`: several cameras in one process, each a `camfx record` whose
/// options come from the file, started together, with one status line; SIGHUP reloads
/// the file.
///
///     camfx run cams.yml
///     camfx run --check cams.yml
struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Record several cameras at once, as a YAML file describes them.",
    discussion: """
      The file names each camera under cameras:, with a map of `camfx record` options. Every key is a record \
      option's long name without "--" (or its short name: o, y, v); a value is the option's value; a list gives \
      the option once per item (filter, output, control, motion-zone, ...); a flag takes true (given) or false \
      (left out; for realtime, --no-realtime). So `camfx record --source /dev/video0 --fps 30 --filter mirror \
      --filter timestamp -o front.mp4` is

        cameras:
          front:
            source: /dev/video0
            fps: 30
            filter: [mirror, timestamp]
            output: front.mp4

      Each camera needs a source (or input) and an output (or pre-record); the same device or output in two \
      cameras is refused. preview: ADDRESS at the top serves a page of every camera (each at /cameras/NAME/); mosaic: puts cameras in one \
      picture (layout: grid, hstack, vstack or pip=CAMERA; cameras:, size:, output:, audio: a camera whose \
      sound is a tone), recorded beside them and named mosaic. Errors name the file, line and key (cams.yml:5: cameras.front.fsp: unknown option (did you \
      mean 'fps'?)).

      The cameras are opened, then started together; their files carry the same creation_time, so they line up. \
      SIGINT/SIGTERM finish every file (a second stops at once); SIGHUP reloads the file: cameras added start, \
      removed ones finish, changed ones are finished and started again, the others record on without a gap; a \
      file with an error is said and the cameras record on as before. SIGUSR1 takes a still of every camera, \
      SIGUSR2 triggers every camera's event clips. Exits 1 if any camera failed.
      """)

  @Flag(help: "Check the file (without opening any device), print each camera's source and outputs, and exit.")
  var check = false

  @Flag(help: "No status line (each camera's summary is still printed).")
  var quiet = false

  @Argument(help: ArgumentHelp("The cameras, in YAML.", valueName: "file.yml"))
  var file: String

  func run() throws {
    let description = try RunFile.read(path: file)
    _ = try description.mosaicRecording()
    if check {
      // What the mosaic's recording needs of the cameras (whose sound) is checked too.
      for camera in description.cameras {
        print("\(camera.name): \(camera.sourceText) -> \(camera.outputText)")
      }
      if let mosaic = description.mosaic {
        let outputs = mosaic.outputs.targets.map(\.displayName).joined(separator: ", ")
        print(
          "mosaic: \(mosaic.layout.text(cameras: mosaic.cameras)) of \(mosaic.cameras.joined(separator: ", ")), "
            + "\(mosaic.size.width)x\(mosaic.size.height) -> \(outputs)")
      }
      return
    }
    FFmpegLogging.configure(verbose: description.cameras.contains { $0.command.verbose })
    let session = RunSession(path: file, quiet: quiet)
    try session.run(description)
  }
}
