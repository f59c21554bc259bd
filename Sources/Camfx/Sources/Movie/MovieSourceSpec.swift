import CamfxCore
import CamfxMedia

/// `--source earlier.mkv`: a movie's pictures played like a camera's — on the wall
/// clock, at the movie's own size and rate, without its sound (`MovieReader`, paced by
/// `PacedSource`). Known by its extension wherever it is (a movie in /dev/shm too).
public struct MovieSourceSpec: LiveSourceSpec {
  /// The extensions a movie `--source` has.
  public static let extensions: Set<String> = ["mp4", "mov", "m4v", "mkv", "webm", "nut", "avi", "ts"]

  public let path: String

  public init(path: String) {
    self.path = path
  }

  public static func parse(_ text: String) throws -> MovieSourceSpec? {
    guard let dot = text.lastIndex(of: "."), extensions.contains(text[text.index(after: dot)...].lowercased()) else {
      return nil
    }
    return MovieSourceSpec(path: text)
  }

  public var description: String { path }
  public var hasOwnSize: Bool { true }

  public func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
    let reader = try MovieReader(path: path, poolCapacity: request.poolCapacity)
    if let size = request.size, size != reader.geometry {
      throw SourceError(
        source: path,
        reason: "--size \(size) does not match the movie's size \(reader.geometry) (a movie --source is not scaled; omit --size)")
    }
    return OpenedLiveSource(source: request.live ? PacedSource(reader) : reader, orRate: 30)
  }
}
