import CamfxCore
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A `MovieWriter` as the writer stage's sink: frames go through its pixel buffer
/// adaptor and encoder, PCM through its AAC encoder, both into one file.
///
/// The movie's time zero is the first video frame (`startSession(atSourceTime:)`), as
/// for a capture: audio that arrives before the first frame (a movie file's sound
/// track is often demultiplexed first) is held until then, and the writer trims
/// whatever part of it lies before that frame.
public final class MovieWriterSink: RecordingSink, YUV420RecordingSink {
  public typealias Audio = PCMBuffer
  public let writer: MovieWriter
  private var sessionStarted = false
  private var heldAudio: [PCMBuffer] = []
  /// The size of the finished file (the writer only knows it while the file is open).
  private var finishedBytes: Int64?

  public init(writer: MovieWriter) {
    self.writer = writer
  }

  public func appendVideo(_ frame: PixelBuffer) throws {
    try startSessionIfNeeded(at: frame.presentationTime) { try writer.append(frame) }
  }

  public func appendVideo(yuv420 frame: YUV420Frame) throws {
    try startSessionIfNeeded(at: frame.presentationTime) { try writer.append(frame) }
  }

  /// Appends a frame with `append`; before the first one, starts the session at its
  /// time and then writes the audio that was waiting for it.
  private func startSessionIfNeeded(at time: MediaTime, append: () throws -> Void) throws {
    if sessionStarted {
      try append()
      return
    }
    writer.startSession(atSourceTime: time)
    sessionStarted = true
    try append()
    for buffer in heldAudio { try writer.append(audio: buffer) }
    heldAudio = []
  }

  public func appendAudio(_ audio: PCMBuffer) throws {
    if sessionStarted {
      try writer.append(audio: audio)
    } else {
      heldAudio.append(audio)
    }
  }

  public func finish() throws {
    try writer.finish()
    var st = stat()
    if stat(writer.path, &st) == 0 { finishedBytes = Int64(st.st_size) }
  }

  public func cancel() { writer.cancel() }
  public var bytesWritten: Int64 { finishedBytes ?? writer.bytesWritten }
}
