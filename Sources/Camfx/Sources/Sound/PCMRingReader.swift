import CamfxCapture
import CamfxCore
import CamfxFrames

/// The consumer side of a microphone's ring, for one recording: the periods cut to its
/// session (`PCMSessionCutter`), waited for when late, and stood in for by silence when
/// the device stalls. A microphone has one for its own recording, and each
/// `MicrophoneReader` one more.
struct PCMRingReader {
  let ring: FrameRing<PCMBuffer>
  var cutter = PCMSessionCutter()
  private let sampleRate: Int
  private let channels: Int
  /// How long late audio is waited for before silence stands in: a second, or a period
  /// and 20 ms when periods are longer.
  private let patienceNanoseconds: Int64

  /// - Parameters: the microphone's format: its rate, channels and frames per period.
  init(ring: FrameRing<PCMBuffer>, sampleRate: Int, channels: Int, periodFrames: Int) {
    self.ring = ring
    self.sampleRate = sampleRate
    self.channels = channels
    patienceNanoseconds = Int64(max(periodFrames * 1_000_000 / sampleRate + 20_000, 1_000_000)) * 1000
  }

  /// The next captured period of `ring`, or `nil` if none is waiting.
  /// - Throws: `failure`, once everything before it was taken.
  static func nextPeriod(of ring: FrameRing<PCMBuffer>, failure: () -> ALSAError?) throws -> PCMBuffer? {
    if let b = ring.tryPop() { return b }
    if ring.isClosed, let error = failure() { throw error }
    return nil
  }

  /// Captured audio from the session start up to (not including) `end` (what
  /// `ALSAMicrophone.nextBuffer(until:)` says), waiting for audio that is late and
  /// filling a stalled device's silence.
  mutating func next(until end: MediaTime, failure: () -> ALSAError?) throws -> PCMBuffer? {
    var giveUp: Int64?
    let ring = ring
    while true {
      if let chunk = try cutter.next(until: end, pop: { try Self.nextPeriod(of: ring, failure: failure) }) {
        return chunk
      }
      // Something is pending, at or after `end`: wait for the video to move on.
      if cutter.pending != nil || ring.isClosed { return nil }
      let now = MonotonicClock.nanoseconds()
      let deadline = giveUp ?? now + patienceNanoseconds
      giveUp = deadline
      if now >= deadline {
        return cutter.silence(until: end, channels: channels, sampleRate: sampleRate)
      }
      // Until the capture thread pushes the next period (or closes the ring).
      ring.readable.wait(timeoutNanoseconds: Int(min(deadline - now, 20_000_000))) { ring.hasElements || ring.isClosed }
    }
  }
}
