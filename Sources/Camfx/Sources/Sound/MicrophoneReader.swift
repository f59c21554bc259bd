import CamfxCore
import CamfxFrames
import Synchronization

/// A second reader of a microphone another recording opened (`ALSAMicrophone.addReader`):
/// one device, opened once, heard by two recordings — a camera's file and the mosaic
/// it is part of. It gets every period captured from its making on, through a ring of
/// its own, cut to its own session; it keeps the device open while it reads, and
/// `close()` lets it go.
///
/// `@unchecked Sendable`: made on one thread and then read by one (a recording's audio
/// stage): the ring has one producer (the capture thread) and one consumer.
public final class MicrophoneReader: @unchecked Sendable {
  public let microphone: ALSAMicrophone
  private var reader: PCMRingReader
  private let filledFrames = Atomic<Int>(0)

  init(microphone: ALSAMicrophone, ring: FrameRing<PCMBuffer>) {
    self.microphone = microphone
    reader = PCMRingReader(
      ring: ring, sampleRate: microphone.sampleRate, channels: microphone.channels, periodFrames: microphone.periodFrames)
  }

  deinit { close() }

  /// Sets where this reader's recording starts (its first video frame).
  public func beginSession(at time: MediaTime) {
    reader.cutter.start = time
  }

  /// As `ALSAMicrophone.nextBuffer(until:)`, for this reader's recording.
  public func nextBuffer(until end: MediaTime) throws -> PCMBuffer? {
    defer { filledFrames.store(reader.cutter.framesFilled, ordering: .relaxed) }
    let microphone = microphone
    return try reader.next(until: end) { microphone.captureError }
  }

  /// Seconds of silence that stood in for missing audio in this reader's recording.
  public var silenceFilled: Double { Double(filledFrames.load(ordering: .relaxed)) / Double(microphone.sampleRate) }

  /// Stops getting periods (the microphone keeps capturing for its own recording).
  public func close() {
    microphone.removeReader(reader.ring)
  }
}
