import Camfx
import CamfxCore
import CamfxMosaic
import CamfxPreview

/// A `camfx run` file, read and checked: its cameras, each a `camfx record` command
/// line parsed by `RecordCommand` itself, the preview server's address, and the mosaic.
///
///     cameras:
///       front:
///         source: /dev/video0
///         fps: 30
///         filter: [mirror, "text=text=Front"]
///         output: front.mp4
///       back:
///         source: testsrc
///         output: back.mp4
///     preview: 127.0.0.1:8080
///
/// Everything that can be checked without opening a device is checked when it is read
/// (`RunFile+Reading.swift`); the first problem is a `RunFileError`.
struct RunFile {
  /// One camera: its name and what `camfx record` would make of its options.
  struct Camera {
    var name: String
    /// The `camfx record` arguments its map stands for, in the file's order: two
    /// cameras with the same arguments are the same recording (a reload leaves it be).
    var arguments: [String]
    /// The options, parsed and validated by `RecordCommand`.
    var command: RecordCommand
    /// What the options describe (`RecordCommand.setup()`).
    var setup: RecordingSetup
    /// The line of the camera's name in the file.
    var line: Int
    /// Where each option it gives is, by long name: the key as written (`o` for
    /// `output`) and its line.
    var optionKeys: [String: (key: String, line: Int)]
    /// The camera whose microphone it hears too (the mosaic's `audio:`), if any.
    var soundFrom: String? = nil

    /// The line of `option`'s key, else of the camera's name.
    func line(of option: String) -> Int { optionKeys[option]?.line ?? line }

    /// `cameras.NAME.KEY` for `option` as the file spells it.
    func keyPath(of option: String) -> String { "cameras.\(name).\(optionKeys[option]?.key ?? option)" }

    /// What it records from: the source, or `input FILE`.
    var sourceText: String {
      if let input = command.input { return "input \(input)" }
      return command.source.first ?? "testsrc"
    }

    /// Where it records to, as the user knows them (a URL without its password).
    var outputText: String {
      let targets = setup.configuration.outputs?.targets.map(\.displayName) ?? []
      let events = setup.configuration.events.map { ["event clips \($0.pattern)"] } ?? []
      return (targets + events).joined(separator: ", ")
    }
  }

  /// The file as it was named.
  var path: String
  var cameras: [Camera]
  /// The preview server: a page of every camera (but those that copy packets).
  var preview: PreviewAddress?
  /// The mosaic, read and checked (not recorded yet).
  var mosaic: MosaicDescription?
}
