import CamfxCore
import CamfxMedia
import CamfxPNG

/// What `compose` learns by opening its items before anything is written: each one's
/// source duration (a still's own), and the first movie's upright size and frame rate,
/// the defaults of the render size and rate (the first still's size at 30 fps when
/// there is no movie).
public struct CompositionProbe {
  public let durations: [MediaTime]
  public let firstSize: FrameGeometry
  public let firstFrameDuration: MediaTime

  /// - Throws: what opening a movie or a PNG throws, or `RecordingOptionError` for a
  ///   movie whose length cannot be told.
  public init(_ composition: Composition) throws {
    var durations: [MediaTime] = []
    var movieSize: FrameGeometry?, movieFrameDuration: MediaTime?, stillSize: FrameGeometry?
    for item in composition.items {
      switch item.asset {
      case .still(let path):
        let image = try PNGFile.read(path: path)
        stillSize = stillSize ?? image.geometry
        durations.append(item.stillDuration)
      case .movie(let path):
        let reader = try MovieReader(path: path, audio: nil, poolCapacity: 2)
        guard let duration = reader.videoDuration ?? reader.duration else {
          throw RecordingOptionError("cannot tell how long '\(path)' is (its container states no duration)")
        }
        durations.append(duration)
        if movieSize == nil {
          let turned = reader.displayRotation == 90 || reader.displayRotation == 270
          movieSize = turned ? FrameGeometry(width: reader.geometry.height, height: reader.geometry.width) : reader.geometry
          movieFrameDuration = reader.frameDuration
        }
      }
    }
    self.durations = durations
    let size = movieSize ?? stillSize ?? FrameGeometry(width: 1280, height: 720)
    // yuv420p needs even sides.
    firstSize = FrameGeometry(width: max(2, size.width & ~1), height: max(2, size.height & ~1))
    firstFrameDuration = movieFrameDuration ?? MediaTime(value: 1, timescale: 30)
  }
}
