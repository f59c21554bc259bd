import Camfx
import CamfxPNG
import CamfxPreview
import Foundation

/// The picture format of `snapshot -o`, from the name's extension, so that the file is
/// what its name says: `.png` (RGB, or RGBA with transparency) or `.jpg`/`.jpeg`
/// (libjpeg-turbo, 4:2:0, quality 90; JPEG has no alpha). Any other extension is
/// refused before the picture is taken.
enum SnapshotImageFormat {
  case png
  case jpeg

  static let jpegQuality = 90

  /// - Throws: `RecordingOptionError` naming `-o` for another extension.
  init(path: String) throws {
    switch (path as NSString).pathExtension.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    default:
      throw RecordingOptionError(
        "-o '\(path)': a snapshot is a PNG (.png) or a JPEG (.jpg, .jpeg); give a name with one of those extensions")
    }
  }

  /// Writes `picture` to `path` (a temporary file that takes its name afterwards).
  /// - Parameter alpha: keep the alpha channel (PNG only).
  func write(_ picture: PixelBuffer, to path: String, alpha: Bool) throws {
    switch self {
    case .png:
      try PNGFile.write(picture, to: path, alpha: alpha)
    case .jpeg:
      let encoder = try JPEGEncoder(width: picture.width, height: picture.height, quality: Self.jpegQuality)
      let bytes = try encoder.encode(picture)
      guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        throw RecordingOptionError("cannot write '\(path)': \(String(cString: strerror(errno)))")
      }
    }
  }
}
