import Camfx
import CamfxMedia
import Foundation
import Synchronization

/// A block of generated samples: where it starts (in samples) and how many.
struct TestAudio: Sendable, Equatable {
  var start: Int64
  var count: Int
}

/// Frames whose every pixel is a grey that stands for the frame number
/// (`CountingInput.grey(n)`), stamped n/30 s, from a small pool; live or file-like.
final class CountingInput: MediaSource {
  typealias Audio = TestAudio
  let geometry: FrameGeometry
  let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 30)
  let isLive: Bool
  let pool: PixelBufferPool
  let total: Int?
  /// File-like inputs with a sound track interleave one audio block per frame.
  let audioPerFrame: Int?
  let failAt: Int?
  private(set) var next = 0
  private(set) var framesDroppedOutOfBuffers = 0
  /// Called before each frame is produced (on the source thread).
  var beforeFrame: (Int) -> Void = { _ in }

  init(
    geometry: FrameGeometry = FrameGeometry(width: 8, height: 4), live: Bool, poolCapacity: Int = 4,
    total: Int?, audioPerFrame: Int? = nil, failAt: Int? = nil
  ) {
    self.geometry = geometry
    self.isLive = live
    self.pool = PixelBufferPool(geometry: geometry, capacity: poolCapacity)
    self.total = total
    self.audioPerFrame = audioPerFrame
    self.failAt = failAt
  }

  var hasAudio: Bool { audioPerFrame != nil }

  /// Frame n's grey: 3 levels from its neighbours', so that it survives the conversion
  /// to yuv420p (±1) and names its frame.
  static func grey(_ n: Int) -> UInt8 { UInt8(n * 3 % 200) }
  private var audioDue = false

  func nextSample() throws -> MediaSample<TestAudio>? {
    if let perFrame = audioPerFrame, audioDue {
      audioDue = false
      return .audio(TestAudio(start: Int64((next - 1) * perFrame), count: perFrame))
    }
    if let total, next >= total { return nil }
    if let failAt, next == failAt { throw RecordingSessionError("input broke at frame \(next)") }
    beforeFrame(next)
    let time = MediaTime(value: Int64(next), timescale: 30)
    let frame: PixelBuffer
    if isLive {
      guard let b = pool.tryAcquire(presentationTime: time) else {
        next += 1
        framesDroppedOutOfBuffers += 1
        return try nextSample()
      }
      frame = b
    } else {
      frame = pool.acquire(presentationTime: time)!
    }
    let grey = Self.grey(next)
    frame.fill(BGRA(b: grey, g: grey, r: grey))
    next += 1
    audioDue = audioPerFrame != nil
    return .video(.bgra(frame))
  }
}

/// What a sink saw, checked after the session ended.
struct SinkRecord {
  var times: [MediaTime] = []
  /// The grey of pixel (0, 0) of every frame, read back from its luma: proves the
  /// filter ran and frames kept their content.
  var firstGreys: [Int] = []
  var geometries: Set<FrameGeometry> = []
  var audio: [TestAudio] = []
  var finished = 0
  var cancelled = 0
}

/// A sink that records everything appended; may fail or wait on request.
///
/// `@unchecked Sendable`: the record is behind a `Mutex`; the hooks are set before the
/// session starts and only called from the writer thread.
final class RecordingTestSink: RecordingSink, @unchecked Sendable {
  typealias Audio = TestAudio
  let record = Mutex(SinkRecord())
  var failAtFrame: Int?
  var beforeAppend: (Int) -> Void = { _ in }
  private var count = 0

  var bytesWritten: Int64 { Int64(count) * 1000 }

  func appendVideo(_ frame: YUV420Frame) throws {
    beforeAppend(count)
    if let failAtFrame, count == failAtFrame { throw RecordingSessionError("disk full at frame \(count)") }
    record.withLock {
      $0.times.append(frame.presentationTime)
      // Limited-range luma of a grey: 16 + 219 × grey / 255.
      $0.firstGreys.append(Int((Double(Int(frame.y[0]) - 16) * 255 / 219).rounded()))
      $0.geometries.insert(frame.geometry)
    }
    count += 1
  }

  func appendAudio(_ audio: TestAudio) throws {
    record.withLock { $0.audio.append(audio) }
  }

  func finish() throws { record.withLock { $0.finished += 1 } }
  func cancel() { record.withLock { $0.cancelled += 1 } }

  var snapshot: SinkRecord { record.withLock { $0 } }
}

/// A tone generator that only counts samples: 48 kHz, blocks of up to 1000 samples.
final class CountingToneGenerator: AudioGenerator {
  typealias Audio = TestAudio
  let sampleRate: Int32 = 48_000
  private var position: Int64 = 0
  private(set) var startTime: MediaTime?

  func start(at time: MediaTime) {
    startTime = time
    position = time.converted(to: sampleRate).value
  }

  func nextChunk(until end: MediaTime) throws -> TestAudio? {
    let endSample = end.converted(to: sampleRate).value
    guard position < endSample else { return nil }
    let count = Int(min(1000, endSample - position))
    defer { position += Int64(count) }
    return TestAudio(start: position, count: count)
  }
}

/// Adds 40 to every colour byte of every pixel: cheap, and visible in the luma the
/// sink records.
struct Brighten: InPlaceVideoFilter {
  static let name = "brighten"
  static let summary = "Adds 40 to every colour (tests)."
  static let example = "none"
  static let options: [FilterOption] = []
  init(options: FilterOptions) throws {}
  init() {}
  mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }
  func process(_ frame: inout PixelBuffer) {
    let (w, h, stride) = (frame.width, frame.height, frame.bytesPerRow)
    frame.withUnsafeMutableBytes { base in
      for y in 0..<h {
        let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<w * 4 where x % 4 != 3 { row[x] &+= 40 }
      }
    }
  }
}

/// Keeps the left half of the frame (a view, like the crop filter).
struct LeftHalf: InPlaceVideoFilter {
  static let name = "left-half"
  static let summary = "Keeps the left half (tests)."
  static let example = "none"
  static let options: [FilterOption] = []
  init(options: FilterOptions) throws {}
  init() {}
  mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    FrameGeometry(width: input.width / 2, height: input.height)
  }
  func process(_ frame: inout PixelBuffer) {
    frame.crop(x: 0, y: 0, width: frame.width / 2, height: frame.height)
  }
}

func configuredChain(_ filters: [any VideoFilter], for geometry: FrameGeometry) throws -> FilterChain {
  var chain = FilterChain(filters)
  try chain.configure(input: geometry)
  return chain
}
