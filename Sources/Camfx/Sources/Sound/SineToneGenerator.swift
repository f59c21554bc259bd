import CamfxCore
import CamfxFrames
import CamfxMedia

/// `--audio sine[=FREQ]` as the session's audio generator: a `SineAudioSource` whose
/// first sample is stamped with the first video frame's time, delivered in blocks that
/// never run ahead of the recorded video.
public final class SineToneGenerator: AudioGenerator {
  public typealias Audio = PCMBuffer
  private var sine: SineAudioSource
  private var startTime: MediaTime = .zero
  /// The largest block handed out at once (0.1 s at 48 kHz).
  public let maximumBlock: Int

  public init(_ sine: SineAudioSource, maximumBlock: Int = 4800) {
    self.sine = sine
    self.maximumBlock = maximumBlock
  }

  public func start(at time: MediaTime) {
    startTime = time
  }

  public func nextChunk(until end: MediaTime) throws -> PCMBuffer? {
    let rate = Int32(sine.sampleRate)
    let endSample = (end - startTime).converted(to: rate).value
    let available = endSample - sine.position
    guard available > 0 else { return nil }
    var buffer = sine.nextBuffer(frameCount: Int(min(available, Int64(maximumBlock))))
    buffer.presentationTime = startTime.converted(to: rate) + buffer.presentationTime
    return buffer
  }
}
