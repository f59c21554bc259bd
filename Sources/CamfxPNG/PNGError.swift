import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// A PNG that could not be read or written.
///
/// Keeps what was being done, to which file, and libpng's own message (libpng's
/// simplified API reports failures as text, not codes), so `description` is the one
/// line a user sees: `cannot read PNG 'mark.png': Not a PNG file`.
public struct PNGError: Error, CustomStringConvertible, Equatable {
  /// What camfx was doing when the failure happened.
  public enum Operation: String, Sendable {
    /// `png_image_begin_read_from_file` / `png_image_finish_read`.
    case read
    /// `png_image_write_to_file`.
    case write
  }

  /// Why the operation failed.
  public enum Reason: Sendable, Equatable {
    /// libpng failed; the message is libpng's (for a missing file it is `strerror`).
    case libpng(String)
    /// A system call failed before libpng was involved (`errno`, e.g. `EISDIR`).
    case system(Int32)
    /// The image is larger than camfx accepts (`FrameGeometry.maximumSide`); nothing
    /// was allocated for it.
    case tooLarge(width: Int, height: Int)
    /// The frame cannot be written (e.g. a side larger than PNG allows).
    case unsupported(String)
  }

  public var operation: Operation
  public var path: String
  public var reason: Reason

  public init(_ operation: Operation, path: String, reason: Reason) {
    self.operation = operation
    self.path = path
    self.reason = reason
  }

  /// The human-readable cause, without the operation and path.
  public var message: String {
    switch reason {
    case .libpng(let text):
      if text.isEmpty { return "unknown libpng error" }
      // libpng's stdio reader says only this when fread comes up short.
      if text == "Read Error" && operation == .read { return "file is truncated (libpng: Read Error)" }
      return text
    case .system(let code): return String(cString: strerror(code))
    case .tooLarge(let w, let h):
      return "image is \(w)x\(h), larger than the maximum \(FrameGeometry.maximumSide) per side"
    case .unsupported(let text): return text
    }
  }

  public var description: String { "cannot \(operation.rawValue) PNG '\(path)': \(message)" }
}
