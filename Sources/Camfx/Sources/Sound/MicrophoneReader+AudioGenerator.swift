import CamfxCapture
import CamfxCore
import CamfxFrames

/// A shared microphone as a second recording's sound: its periods cut to that
/// recording's own first frame, and never past the video it has recorded.
extension MicrophoneReader: AudioGenerator {
  public typealias Audio = PCMBuffer

  public func start(at time: MediaTime) {
    // The recording that opened the microphone starts it; this may come first.
    try? microphone.start()
    beginSession(at: time)
  }

  public func nextChunk(until end: MediaTime) throws -> PCMBuffer? {
    try nextBuffer(until: end)
  }
}

extension MicrophoneReader: Equatable {
  /// One reader is one recording's.
  public static func == (a: MicrophoneReader, b: MicrophoneReader) -> Bool { a === b }
}
