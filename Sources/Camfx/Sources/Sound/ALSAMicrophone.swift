import CALSA
import CamfxCapture
import CamfxCore
import CamfxFrames
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An ALSA capture device as a source of S16 interleaved PCM, like
/// `AVCaptureAudioDataOutput`: it reads periods on its own thread and hands them to the
/// consumer through a lock-free `FrameRing`, each stamped on CLOCK_MONOTONIC, the clock
/// the camera's frames carry.
///
///     capture thread: snd_pcm_wait -> snd_pcm_readi -> PCMBuffer(pts) -> ring
///     consumer:       nextBuffer() / the recording's audio stage
///
/// Overruns (the consumer or the machine was too slow) are recovered with
/// `snd_pcm_recover` and counted; the timestamps re-anchor to the clock afterwards, so
/// the gap stays a gap instead of shifting later audio.
///
/// `@unchecked Sendable`: the PCM handle is used by `start` once, then only by the
/// capture thread, and closed by `stop` after that thread has ended; each ring has one
/// producer (that thread) and one consumer (the recording's audio stage, or a
/// `MicrophoneReader`'s); counters and flags are atomics, the thread and the other
/// readers' rings under mutexes.
public final class ALSAMicrophone: @unchecked Sendable {
  /// The ALSA device name, e.g. `default`, `hw:Loopback,1,0`.
  public let device: String
  /// The rate and channel count the device runs at (maybe not what was asked).
  public let sampleRate: Int
  public let channels: Int
  /// Sample frames per read.
  public let periodFrames: Int
  /// What differs from the request, in words for the user.
  public let notes: [String]

  /// Times the device overran and was recovered.
  public var overruns: Int { overrunCount.load(ordering: .relaxed) }
  /// Periods dropped because the ring to the consumer was full.
  public var periodsDropped: Int { droppedCount.load(ordering: .relaxed) }

  private let pcm: OpaquePointer
  let ring: FrameRing<PCMBuffer>
  private let overrunCount = Atomic<Int>(0)
  private let droppedCount = Atomic<Int>(0)
  private let filledFrames = Atomic<Int>(0)
  private let stopRequested = Atomic<Bool>(false)
  /// The device is closed (by `stop`): it cannot start again.
  private let closed = Atomic<Bool>(false)
  private let threadRunning = Atomic<Bool>(false)
  private let failure = Mutex<ALSAError?>(nil)
  /// The capture thread; started and stopped by the recordings that hear it, from theirs.
  private let thread = Mutex<NamedThread?>(nil)
  // Consumer side (the thread calling nextBuffer): where the session starts, and the
  // rest of a period that reached past the last `until`.
  private var reader: PCMRingReader
  /// The rings of the other readers (`addReader`), each fed every period; nil once
  /// capture has ended (a reader added then gets a closed ring).
  private let otherReaders = Mutex<[FrameRing<PCMBuffer>]?>([])

  /// Opens `device` for capture at (or near) `sampleRate` and `channels`.
  /// - Parameters:
  ///   - device: `default`, `hw:CARD,DEV[,SUB]`, or any ALSA PCM name.
  ///   - ringCapacity: periods the ring holds (a power of two); at 20 ms per period the
  ///     default holds about 80 s (1.6 MB a minute of mono, allocated only as it fills):
  ///     a recording's writer busy with video on a slow machine falls behind on sound,
  ///     and the sound waits here to be encoded after the video ends instead of being lost.
  /// - Throws: `ALSAError` `.noSuchDevice`, `.deviceBusy`, `.permissionDenied`, or the
  ///   failing hardware-parameter call.
  public init(device: String = "default", sampleRate: Int = 48_000, channels: Int = 2, ringCapacity: Int = 4096) throws {
    camfx_alsa_silence_errors()
    self.device = device
    var handle: OpaquePointer?
    let status = snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
    guard status == 0, let handle else { throw ALSAError.openFailure(code: status, device: device) }
    pcm = handle
    var notes: [String] = []
    var rate = UInt32(sampleRate)
    var channelCount = UInt32(channels)
    var period = snd_pcm_uframes_t(max(sampleRate / 50, 64))  // 20 ms
    do {
      var params: OpaquePointer?
      guard snd_pcm_hw_params_malloc(&params) == 0, let params else {
        throw ALSAError(.failed, code: -ENOMEM, operation: "snd_pcm_hw_params_malloc", device: device)
      }
      defer { snd_pcm_hw_params_free(params) }
      func check(_ code: Int32, _ operation: String, _ detail: String? = nil) throws {
        if code < 0 { throw ALSAError(code: code, operation: operation, device: device, detail: detail) }
      }
      try check(snd_pcm_hw_params_any(pcm, params), "snd_pcm_hw_params_any")
      try check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
      try check(snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format",
                "the device cannot capture signed 16-bit samples")
      try check(snd_pcm_hw_params_set_channels_near(pcm, params, &channelCount), "snd_pcm_hw_params_set_channels_near")
      var dir: Int32 = 0
      try check(snd_pcm_hw_params_set_rate_near(pcm, params, &rate, &dir), "snd_pcm_hw_params_set_rate_near")
      try check(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, &dir), "snd_pcm_hw_params_set_period_size_near")
      // About a second of buffer: the capture thread may be starved for a while on a
      // busy machine (encoding), and an overrun loses audio.
      var bufferFrames = max(period * 8, snd_pcm_uframes_t(sampleRate))
      try check(snd_pcm_hw_params_set_buffer_size_near(pcm, params, &bufferFrames), "snd_pcm_hw_params_set_buffer_size_near")
      try check(snd_pcm_hw_params(pcm, params), "snd_pcm_hw_params")
      try check(snd_pcm_hw_params_get_period_size(params, &period, &dir), "snd_pcm_hw_params_get_period_size")
      try check(snd_pcm_prepare(pcm), "snd_pcm_prepare")
    } catch {
      snd_pcm_close(pcm)
      throw error
    }
    if Int(rate) != sampleRate { notes.append("the device runs at \(rate) Hz instead of \(sampleRate) Hz") }
    if Int(channelCount) != channels {
      notes.append("the device captures \(channelCount) channel(s) instead of \(channels)")
    }
    self.sampleRate = Int(rate)
    self.channels = Int(channelCount)
    self.periodFrames = Int(period)
    self.notes = notes
    ring = FrameRing(capacity: ringCapacity)
    reader = PCMRingReader(ring: ring, sampleRate: Int(rate), channels: Int(channelCount), periodFrames: Int(period))
  }

  deinit { stop() }

  /// Starts capturing on a thread of its own. Calling it again does nothing.
  /// - Throws: `ALSAError` if `snd_pcm_start` fails.
  public func start() throws {
    guard !threadRunning.exchange(true, ordering: .acquiringAndReleasing) else { return }
    guard !closed.load(ordering: .acquiring) else {
      throw ALSAError(code: -EBADF, operation: "snd_pcm_start", device: device, detail: "the microphone was stopped")
    }
    let status = snd_pcm_start(pcm)
    guard status == 0 else {
      threadRunning.store(false, ordering: .releasing)
      throw ALSAError(code: status, operation: "snd_pcm_start", device: device)
    }
    do {
      let started = try NamedThread("camfx.mic") { [self] in captureLoop() }
      thread.withLock { $0 = started }
    } catch {
      threadRunning.store(false, ordering: .releasing)
      throw ALSAError(.failed, code: -error.code, operation: "pthread_create", device: device)
    }
  }

  /// Stops the capture thread and waits for it, and closes the device (another
  /// recording may open it now, even while a reader of this one finishes); the rings
  /// are closed, so the consumers get what was captured and then `nil`.
  public func stop() {
    stopRequested.store(true, ordering: .releasing)
    if let running = thread.withLock({ t in defer { t = nil }; return t }) { running.join() }
    if !closed.exchange(true, ordering: .acquiringAndReleasing) { snd_pcm_close(pcm) }
    // (Capture that never started closes its rings here.)
    closeRings()
  }

  private func closeRings() {
    ring.close()
    for other in otherReaders.withLock({ readers in defer { readers = nil }; return readers ?? [] }) { other.close() }
  }

  /// The error that ended capture early (device unplugged), if any.
  public var captureError: ALSAError? { failure.withLock { $0 } }

  /// The next captured period, or `nil` if none is waiting (consumer side).
  /// - Throws: the `ALSAError` that ended capture, once everything before it was taken.
  public func nextBuffer() throws -> PCMBuffer? {
    try PCMRingReader.nextPeriod(of: ring) { captureError }
  }

  /// Sets where the recording starts (its first video frame): audio captured before it
  /// is trimmed, sample-exactly. Consumer side.
  public func beginSession(at time: MediaTime) {
    reader.cutter.start = time
  }

  /// A second reader of this microphone, for another recording: every period captured
  /// from now on reaches it too, through a ring of its own (`ringCapacity` periods),
  /// until it is closed.
  public func addReader(ringCapacity: Int = 4096) -> MicrophoneReader {
    let other = FrameRing<PCMBuffer>(capacity: ringCapacity)
    let added = otherReaders.withLock { readers in
      readers?.append(other)
      return readers != nil
    }
    if !added { other.close() }
    return MicrophoneReader(microphone: self, ring: other)
  }

  /// Stops feeding `ring` (a reader closed).
  func removeReader(_ ring: FrameRing<PCMBuffer>) {
    otherReaders.withLock { $0?.removeAll { $0 === ring } }
  }

  /// Captured audio from the session start up to (not including) `end`, trimmed at
  /// both ends, as one gapless run of samples on the capture clock (audio lost to an
  /// overrun comes back as silence); `nil` when nothing before `end` has been captured
  /// yet. Never an empty buffer. Consumer side.
  ///
  /// It waits up to a second for audio: a capture thread starved on a busy machine
  /// catches up within its one-second ALSA buffer, and the last call of a recording must
  /// not give up on audio that is merely late. A device that delivers nothing for that
  /// long (a loopback whose player stopped) is stalled: silence stands in for it, up to
  /// `end`, so the sound track keeps up with the video (`silenceFilled` counts it).
  /// - Throws: the `ALSAError` that ended capture (device unplugged).
  public func nextBuffer(until end: MediaTime) throws -> PCMBuffer? {
    defer { filledFrames.store(reader.cutter.framesFilled, ordering: .relaxed) }
    return try reader.next(until: end) { captureError }
  }

  /// Seconds of silence that stand in for missing audio (overruns, a stalled device,
  /// periods dropped because the consumer fell behind) in the recording so far.
  public var silenceFilled: Double { Double(filledFrames.load(ordering: .relaxed)) / Double(sampleRate) }

  /// The capture thread: waits for a period, reads it, stamps it, pushes it.
  private func captureLoop() {
    defer { closeRings() }
    var scratch = [Int16](repeating: 0, count: periodFrames * channels)
    var anchor: Int64?  // ns on CLOCK_MONOTONIC of sample frame `framesSinceAnchor == 0`
    var framesSinceAnchor: Int64 = 0
    let nanosPerSecond: Int64 = 1_000_000_000
    while !stopRequested.load(ordering: .acquiring) {
      let ready = snd_pcm_wait(pcm, 100)
      if ready == 0 { continue }  // timeout: check the stop flag
      var read = 0
      if ready > 0 {
        read = scratch.withUnsafeMutableBytes { Int(snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(periodFrames))) }
      } else {
        read = Int(ready)
      }
      if read == -Int(EAGAIN) || read == 0 { continue }
      if read < 0 {
        let code = Int32(read)
        let overrun = code == -CAMFX_EPIPE || code == -CAMFX_ESTRPIPE
        if overrun { overrunCount.add(1, ordering: .relaxed) }
        // snd_pcm_recover re-prepares after an overrun; a capture stream then needs
        // snd_pcm_start again. Anything else (ENODEV: unplugged) ends capture.
        if overrun, snd_pcm_recover(pcm, code, 1) == 0, snd_pcm_start(pcm) == 0 {
          anchor = nil  // samples were lost: re-anchor on the clock
          continue
        }
        failure.withLock { $0 = ALSAError(code: code, operation: "snd_pcm_readi", device: device) }
        return
      }
      // The read's last frame was captured `delay` frames before now.
      let nowNanos = MonotonicClock.nanoseconds()
      var delay: snd_pcm_sframes_t = 0
      if snd_pcm_delay(pcm, &delay) < 0 { delay = 0 }
      let measuredStart = nowNanos - (Int64(read) + Int64(delay)) * nanosPerSecond / Int64(sampleRate)
      if let a = anchor {
        let expected = a + framesSinceAnchor * nanosPerSecond / Int64(sampleRate)
        // Re-anchor only on a real jump (> 40 ms), so ordinary scheduling jitter does not
        // make the timestamps wobble; small clock drift is absorbed the same way.
        if abs(measuredStart - expected) > 40_000_000 {
          anchor = measuredStart
          framesSinceAnchor = 0
        }
      } else {
        anchor = measuredStart
        framesSinceAnchor = 0
      }
      let pts = anchor! + framesSinceAnchor * nanosPerSecond / Int64(sampleRate)
      framesSinceAnchor += Int64(read)
      let buffer = PCMBuffer(
        samples: Array(scratch[0..<(read * channels)]), channels: channels, sampleRate: sampleRate,
        presentationTime: MediaTime(value: pts, timescale: Int32(nanosPerSecond)))
      if !ring.tryPush(buffer) { droppedCount.add(1, ordering: .relaxed) }
      // (A reader that falls behind loses periods of its own; the cutter fills them.)
      for other in otherReaders.withLock({ $0 ?? [] }) { _ = other.tryPush(buffer) }
    }
  }
}
