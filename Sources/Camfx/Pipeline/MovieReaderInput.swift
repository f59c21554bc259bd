import CamfxCore
import CamfxMedia

/// A movie file (`--input FILE`) as a recording input: its frames and, when the reader
/// was opened with audio, its sound, in file order. Not live: the source stage waits
/// for room (back-pressure), so a transcode drops and duplicates nothing.
public final class MovieReaderInput: RecordingInput {
  public typealias Audio = PCMBuffer
  public let reader: MovieReader

  public init(_ reader: MovieReader) {
    self.reader = reader
  }

  public var geometry: FrameGeometry { reader.geometry }
  public var frameDuration: MediaTime? { reader.frameDuration }
  public var isLive: Bool { false }
  public var hasAudio: Bool { reader.audioSampleRate != nil }
  public var pixelFormatName: String { reader.pixelFormatName }

  public var canDeliverYUV420Frames: Bool { reader.canDeliverYUV420Frames }

  public func deliverYUV420Frames() {
    reader.deliversYUV420Frames = true
  }

  public func nextSample() throws -> RecordingSample<PCMBuffer>? {
    switch try reader.nextSample() {
    case .video(let frame): return .video(frame)
    case .audio(let pcm): return .audio(pcm)
    case nil: return nil
    }
  }
}
