import ArgumentParser
import Camfx
import CamfxCapture
import Foundation

/// `camfx devices`: the cameras (with every format, size and rate, like
/// `AVCaptureDevice.formats`) and the ALSA capture devices.
///
///     camfx devices
///     camfx devices --json
struct DevicesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "devices",
    abstract: "List cameras (formats, sizes, rates) and microphones.")

  @Flag(help: "Print JSON instead of text.")
  var json = false

  func run() throws {
    let (cameras, problems) = CameraDevice.discover()
    let microphones = AudioDevice.discover()
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      let report = DevicesReport(cameras: cameras, problems: problems, microphones: microphones)
      print(String(decoding: try encoder.encode(report), as: UTF8.self))
      return
    }
    print(Self.text(cameras: cameras, problems: problems, microphones: microphones), terminator: "")
  }

  static func text(cameras: [CameraDevice], problems: [V4L2Error], microphones: [AudioDevice]) -> String {
    var out = ""
    if cameras.isEmpty {
      out += "No cameras found.\n"
    } else {
      out += "Cameras:\n"
      for camera in cameras {
        out += "  \(camera.path): \(camera.card) (driver \(camera.driver), bus \(camera.busInfo))\n"
        var lastFormat: CameraPixelFormat?
        for format in camera.formats {
          if format.pixelFormat != lastFormat {
            let emulated = format.isEmulated ? ", converted by libv4l2" : ""
            let usable = format.pixelFormat.isConvertible ? "" : ", not supported by camfx"
            out += "    \(format.pixelFormat.code) (\(format.formatDescription)\(emulated)\(usable)), --input-format \(format.pixelFormat.name)\n"
            lastFormat = format.pixelFormat
          }
          let rates = format.frameIntervals.isEmpty ? "" : " @ " + format.frameIntervals.map(\.description).joined(separator: ", ") + " fps"
          out += "      \(format.size)\(rates)\n"
        }
      }
    }
    for problem in problems { out += "  (\(problem))\n" }
    if microphones.isEmpty {
      out += "No microphones (ALSA capture devices) found.\n"
    } else {
      out += "Microphones (ALSA capture devices; --audio NAME):\n"
      for mic in microphones {
        let subs = mic.subdevices > 1 ? ", \(mic.subdevices) subdevices (\(mic.name),SUB)" : ""
        out += "  \(mic.name): \(mic.cardName), \(mic.deviceName)\(subs)\n"
      }
    }
    return out
  }
}

/// The JSON shape of `camfx devices --json`.
struct DevicesReport: Encodable {
  struct Camera: Encodable {
    var path, driver, card, bus: String
    var formats: [Format]
  }
  struct Format: Encodable {
    var pixelFormat, inputFormat, description: String
    var width, height: Int
    var fps: [Double]
    var emulated, supported: Bool
  }
  struct Microphone: Encodable {
    var name, card, cardName, device: String
    var subdevices: Int
  }
  var cameras: [Camera]
  var problems: [String]
  var microphones: [Microphone]

  init(cameras: [CameraDevice], problems: [V4L2Error], microphones: [AudioDevice]) {
    self.cameras = cameras.map { c in
      Camera(
        path: c.path, driver: c.driver, card: c.card, bus: c.busInfo,
        formats: c.formats.map { f in
          Format(
            pixelFormat: f.pixelFormat.code, inputFormat: f.pixelFormat.name, description: f.formatDescription,
            width: f.size.width, height: f.size.height, fps: f.frameIntervals.map(\.framesPerSecond),
            emulated: f.isEmulated, supported: f.pixelFormat.isConvertible)
        })
    }
    self.problems = problems.map(\.description)
    self.microphones = microphones.map {
      Microphone(name: $0.name, card: $0.cardID, cardName: $0.cardName, device: $0.deviceName, subdevices: $0.subdevices)
    }
  }
}
