import Camfx
import CamfxCore
import CamfxMosaic

extension RunFile {
  /// The name the mosaic goes by among the cameras (status line, messages, preview), in
  /// `camfx run` and in `record --layout` alike.
  static let mosaicName = "mosaic"

  /// The mosaic as one more recording of the run, made as a camera is (a `camfx record`
  /// command line, parsed by `RecordCommand`): its outputs, its frame rate (its fastest
  /// camera's `fps`, else 30) and the sound of the camera `audio:` names. Its source is
  /// the picture (`MosaicSource`), given when it starts. Its `arguments` hold the
  /// layout, size and cameras too, so that a reload that changes any of them starts it
  /// again.
  /// - Throws: `RunFileError` on the line of `mosaic:` (or of its key) when the mosaic
  ///   cannot record as asked.
  /// The cameras, and the mosaic after them when the file has one: what a run records.
  /// - Parameter keeping: the recordings running now: a mosaic that is as it was is
  ///   taken as it is (its file exists now, and is its own).
  func recordings(keeping: [String: Camera] = [:]) throws(RunFileError) -> [Camera] {
    try cameras + (mosaicRecording(keeping: keeping).map { [$0] } ?? [])
  }

  func mosaicRecording(keeping: [String: Camera] = [:]) throws(RunFileError) -> Camera? {
    guard let mosaic else { return nil }
    if let camera = cameras.first(where: { $0.name == Self.mosaicName }) {
      throw RunFileError(
        path: path, line: camera.line, key: "cameras.\(Self.mosaicName)",
        message: "'\(Self.mosaicName)' is the name of the file's mosaic: give this camera another name")
    }
    let shown = cameras.filter { mosaic.cameras.contains($0.name) }
    let rate = shown.compactMap(\.command.fps).max() ?? 30
    var arguments = ["--source", "testsrc"]
    // Its fastest camera's rate, unless its own fps: says otherwise.
    if !mosaic.recordArguments.contains(where: { $0 == "--fps" || $0.hasPrefix("--fps=") }) { arguments += ["--fps", "\(rate)"] }
    arguments += mosaic.recordArguments
    for target in mosaic.outputs.targets { arguments += ["-o", target.displayName] }
    var soundFrom: String? = nil
    var soundIdentity: [String] = []
    if let name = mosaic.audio, let camera = cameras.first(where: { $0.name == name }) {
      switch camera.setup.configuration.sound {
      case .tone(let frequency): arguments += ["--audio", "sine=\(frequency)"]
      case .microphone:
        // The camera's microphone, heard a second time (it is opened once): when the
        // camera starts again, so does the mosaic.
        soundFrom = name
        soundIdentity = ["#audio-of", name] + camera.arguments
      case .none, .movie, .microphoneReader:
        throw RunFileError(
          path: path, line: mosaic.line, key: "mosaic.audio", message: "\(name) records no sound to go with the mosaic")
      }
    }
    let identity = [
      "#layout", mosaic.layout.text(cameras: mosaic.cameras), "#size", "\(mosaic.size.width)x\(mosaic.size.height)",
      "#cameras",
    ] + mosaic.cameras + soundIdentity
    if var kept = keeping[Self.mosaicName], kept.arguments == arguments + identity {
      kept.line = mosaic.line
      return kept
    }
    let command: RecordCommand
    let setup: RecordingSetup
    do {
      command = try RecordCommand.parse(arguments)
      setup = try command.setup()
    } catch {
      throw RunFileError(path: path, line: mosaic.line, key: "mosaic", message: "\(error)")
    }
    return Camera(
      name: Self.mosaicName, arguments: arguments + identity, command: command, setup: setup, line: mosaic.line,
      optionKeys: [:], soundFrom: soundFrom)
  }
}
