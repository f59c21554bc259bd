import CamfxCore
import CamfxFrames
import CamfxMedia

/// A `MovieWriter` as the writer stage's sink: frames go through its pixel buffer
/// adaptor and encoder, PCM through its AAC encoder, and the packets to its outputs.
///
/// The movie's time zero is the first video frame: the writer holds audio that
/// arrives before it (a movie file's sound track is often demultiplexed first) and
/// trims whatever part of it lies before that frame.
public final class MovieWriterSink: RecordingSink {
  public typealias Audio = PCMBuffer
  public let writer: MovieWriter

  public init(writer: MovieWriter) {
    self.writer = writer
  }

  public func appendVideo(_ frame: YUV420Frame) throws { try writer.append(frame) }
  public func appendAudio(_ audio: PCMBuffer) throws { try writer.append(audio: audio) }
  public func finish() throws { try writer.finish() }
  public func cancel() { writer.cancel() }
  public var bytesWritten: Int64 { writer.bytesWritten }
  public var largestOutputBytes: Int64 { writer.largestOutputBytes }
  public var stopRequest: StopReason? {
    if writer.allOutputsEnded { return .outputsEnded }
    return writer.stopRequest == nil ? nil : .minFree
  }
  public var videoKept: (frames: Int, seconds: Double)? { writer.videoInOutputs }
}
