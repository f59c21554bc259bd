import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

/// A microphone as the recording's sound (`--audio default|hw:CARD,DEV[,SUB]`): audio
/// captured before the first video frame is trimmed, and blocks never run past the
/// video recorded so far, so both tracks start and end together on CLOCK_MONOTONIC.
extension ALSAMicrophone: AudioGenerator {
  public typealias Audio = PCMBuffer

  public func start(at time: MediaTime) {
    // Capture normally started before the session (so the first frame has sound);
    // starting here too is harmless (start() is idempotent) and covers callers that
    // did not. A failure to start shows up as no audio, and as the error below.
    try? start()
    beginSession(at: time)
  }

  public func nextChunk(until end: MediaTime) throws -> PCMBuffer? {
    try nextBuffer(until: end)
  }
}
