import CamfxCore

/// `--source photo.png`: a PNG repeated as frames (`PNGImageSource`), at its own size.
/// The last kind tried: any value no other kind takes is a PNG's path, checked when
/// opened.
public struct ImageSpec: LiveSourceSpec {
  public let path: String

  public init(path: String) {
    self.path = path
  }

  public static func parse(_ text: String) throws -> ImageSpec? { ImageSpec(path: text) }

  public var description: String { path }
  public var hasOwnSize: Bool { true }

  public func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
    let rate = request.framesPerSecond ?? 30
    let source = try PNGImageSource(path: path, frameRate: rate, live: request.live, poolCapacity: request.poolCapacity)
    if let size = request.size, size != source.geometry {
      throw SourceError(
        source: path,
        reason: "--size \(size) does not match the image's size \(source.geometry) (camfx does not scale; omit --size)")
    }
    return OpenedLiveSource(source: source, framesPerSecond: Double(rate))
  }
}
