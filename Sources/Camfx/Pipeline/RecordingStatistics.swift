import CamfxCore
import CamfxMedia
import Synchronization

/// Counters the stages bump as frames move, read by the status line while they run.
///
/// Each counter has one writer (the stage that owns it); relaxed atomics suffice because
/// readers only want a recent value, and the final figures are read after every stage
/// thread was joined.
public final class RecordingStatistics: Sendable {
  /// Frames the input delivered or tried to (accepted + dropped).
  let framesIn = Atomic<Int>(0)
  /// Frames the source stage handed on to the filter stage.
  let framesAccepted = Atomic<Int>(0)
  let framesFiltered = Atomic<Int>(0)
  /// Frames the filter stage got as BGRA (the rest came as yuv420p and never were BGRA).
  let framesInBGRA = Atomic<Int>(0)
  /// Frames the sink encoded.
  let framesWritten = Atomic<Int>(0)
  /// When the sink took the first frame (`MonotonicClock` nanoseconds; 0: not yet): a
  /// frame rate measured from there needs no earlier reading of the counters.
  let firstFrameWrittenNanoseconds = Atomic<Int64>(0)
  /// When the sink took the latest frame (`MonotonicClock` nanoseconds; 0: not yet): how
  /// long a camera has been silent (unplugged, reconnecting, ended), while it is.
  let lastFrameWrittenNanoseconds = Atomic<Int64>(0)
  let droppedLate = Atomic<Int>(0)
  let droppedOutOfBuffers = Atomic<Int>(0)
  let droppedCorrupt = Atomic<Int>(0)
  let audioChunksWritten = Atomic<Int>(0)
  let bytesWritten = Atomic<Int64>(0)
  /// Wall-clock time the filter stage spent in the chain (not waiting for frames).
  let filterBusyNanoseconds = Atomic<Int64>(0)
  /// Wall-clock time the writer stage spent in the sink: conversion, encoding, muxing.
  let writerBusyNanoseconds = Atomic<Int64>(0)
  /// Frames the tap stage handed to the taps, and frames of a live input it had no
  /// room for (the file has them; the taps did not see them).
  let framesTapped = Atomic<Int>(0)
  let tapFramesDropped = Atomic<Int>(0)
  /// Wall-clock time the tap stage spent in the taps.
  let tapBusyNanoseconds = Atomic<Int64>(0)

  init() {}

  func countDrop(_ reason: DropReason) { countDrops(reason, 1) }

  /// Counts one frame the sink took (on the writer stage).
  func countFrameWritten() {
    let now = MonotonicClock.nanoseconds()
    if framesWritten.add(1, ordering: .relaxed).newValue == 1 {
      firstFrameWrittenNanoseconds.store(now, ordering: .relaxed)
    }
    lastFrameWrittenNanoseconds.store(now, ordering: .relaxed)
  }

  /// Seconds from the latest frame the sink took to `now` (`MonotonicClock`
  /// nanoseconds); nil before the first frame.
  public func secondsSinceLastFrame(now: Int64) -> Double? {
    let last = lastFrameWrittenNanoseconds.load(ordering: .relaxed)
    guard last > 0 else { return nil }
    return Double(max(0, now - last)) / 1e9
  }

  /// Frames written per second since the first one, up to `now` (`MonotonicClock`
  /// nanoseconds); 0 before the first frame.
  public func averageFramesPerSecond(now: Int64) -> Double {
    let first = firstFrameWrittenNanoseconds.load(ordering: .relaxed)
    let frames = framesWritten.load(ordering: .relaxed)
    guard first > 0, now > first else { return 0 }
    return Double(frames) / (Double(now - first) / 1e9)
  }

  /// Counts `count` frames dropped for `reason` (none when `count` is 0).
  func countDrops(_ reason: DropReason, _ count: Int) {
    guard count > 0 else { return }
    framesIn.add(count, ordering: .relaxed)
    switch reason {
    case .late: droppedLate.add(count, ordering: .relaxed)
    case .outOfBuffers: droppedOutOfBuffers.add(count, ordering: .relaxed)
    case .corrupt: droppedCorrupt.add(count, ordering: .relaxed)
    }
  }

  /// A consistent-enough copy for the status line.
  public var snapshot: Snapshot {
    Snapshot(
      framesIn: framesIn.load(ordering: .relaxed),
      framesWritten: framesWritten.load(ordering: .relaxed),
      droppedLate: droppedLate.load(ordering: .relaxed),
      droppedOutOfBuffers: droppedOutOfBuffers.load(ordering: .relaxed),
      droppedCorrupt: droppedCorrupt.load(ordering: .relaxed),
      bytesWritten: bytesWritten.load(ordering: .relaxed))
  }

  /// Counters at one moment.
  public struct Snapshot: Sendable {
    public var framesIn: Int
    public var framesWritten: Int
    public var droppedLate: Int
    public var droppedOutOfBuffers: Int
    public var droppedCorrupt: Int
    public var bytesWritten: Int64
    public var dropped: Int { droppedLate + droppedOutOfBuffers + droppedCorrupt }

    public init(
      framesIn: Int, framesWritten: Int, droppedLate: Int, droppedOutOfBuffers: Int, droppedCorrupt: Int = 0,
      bytesWritten: Int64
    ) {
      self.framesIn = framesIn
      self.framesWritten = framesWritten
      self.droppedLate = droppedLate
      self.droppedOutOfBuffers = droppedOutOfBuffers
      self.droppedCorrupt = droppedCorrupt
      self.bytesWritten = bytesWritten
    }
  }
}
