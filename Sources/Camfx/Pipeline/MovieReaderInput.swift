import CamfxCapture
import CamfxCore
import CamfxMedia

/// A movie file (`--input FILE`) as a recording input: its frames and, when the reader
/// was opened with audio, its sound, in file order. Not live: the source stage waits
/// for room (back-pressure), so a transcode drops and duplicates nothing.
public final class MovieReaderInput: RecordingInput, YUV420RecordingInput {
  public typealias Audio = PCMBuffer
  public let reader: MovieReader

  /// Also gives the reader camfx's own SIMD yuv420p → BGRA converter (the camera's
  /// I420 path), which it uses instead of libswscale for BT.601 limited-range frames.
  public init(_ reader: MovieReader) {
    self.reader = reader
    reader.yuv420Converter = { luma, lumaBytesPerRow, cb, cr, chromaBytesPerRow, destination in
      PixelConverter.convertI420(
        luma: luma, lumaBytesPerRow: lumaBytesPerRow, cb: cb, cr: cr, chromaBytesPerRow: chromaBytesPerRow,
        to: destination)
    }
  }

  public var geometry: FrameGeometry { reader.geometry }
  public var frameDuration: MediaTime? { reader.frameDuration }
  public var isLive: Bool { false }
  public var hasAudio: Bool { reader.audioSampleRate != nil }

  public func deliverYUV420Frames() {
    reader.deliversYUV420Frames = true
  }

  public func nextSample() throws -> RecordingSample<PCMBuffer>? {
    switch try reader.nextSample() {
    case .video(let frame): return .video(frame)
    case .yuv420Video(let picture): return .yuv420Video(picture)
    case .audio(let pcm): return .audio(pcm)
    case nil: return nil
    }
  }
}
