import Camfx

/// Who implements an operation.
public enum Library: String, Sendable, CaseIterable, Codable {
  case camfx
  case libyuv
  /// libavfilter or libswscale, whichever FFmpeg part a command-line user would get.
  case ffmpeg
  /// memcpy and an in-place read-modify-write: what memory speed allows.
  case reference
}

/// One library's way of doing one operation on one frame.
public struct Contender {
  public let library: Library
  /// The exact function or graph, e.g. `ARGBGray` or `format=gray,format=bgra`.
  public let detail: String
  /// Sets up buffers and handles once and returns the per-frame work.
  public let make: () throws -> FrameJob

  public init(_ library: Library, _ detail: String, make: @escaping () throws -> FrameJob) {
    self.library = library
    self.detail = detail
    self.make = make
  }
}

/// The work for one frame; everything it needs was set up by `Contender.make`.
public typealias FrameJob = () throws -> Void

/// One row of the comparison: an operation at one frame size, with its contenders.
public struct FrameOperation {
  /// Short stable name used in benchmark names, e.g. `grayscale`.
  public let name: String
  public let geometry: FrameGeometry
  public let contenders: [Contender]
  /// Why camfx has no contender here (its kernel is not on main yet), if so.
  public let missing: String?
  /// The fewest bytes one frame's work must read and write (source once, destination
  /// once): with the machine's copy bandwidth, the operation's memory ceiling on frames
  /// that come from memory. Nil where the work is not bound by the frame's size.
  public let bytesMoved: Int?

  public init(
    name: String, geometry: FrameGeometry, contenders: [Contender], missing: String? = nil, bytesMoved: Int? = nil
  ) {
    self.name = name
    self.geometry = geometry
    self.contenders = contenders
    self.missing = missing
    self.bytesMoved = bytesMoved
  }

  public func contender(_ library: Library) -> Contender? { contenders.first { $0.library == library } }
}
