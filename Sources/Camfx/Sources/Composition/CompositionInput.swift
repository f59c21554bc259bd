import CamfxCore
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A composition rendered on its timeline, as the input of a recording pipeline (what
/// `AVAssetExportSession` reads from an `AVComposition` with its video composition and
/// audio mix): one BGRA frame every `frameDuration` at the render size, and the mixed
/// sound in blocks of one frame's length, in time order, until the composition's end.
/// The video and the sound are exactly the same length.
///
/// Frame `k` shows time `k · frameDuration`. Where two items overlap (a cross-fade) the
/// incoming one's opacity rises linearly over the overlap, and their sounds are mixed
/// with equal-power gains (cos and sin of a quarter turn), so the loudness stays even;
/// `fadeIn` and `fadeOut` ramp the picture from and to the background and the sound from
/// and to silence, reaching them on the first and last frame and sample.
///
/// Not live: the pipeline waits for it, and nothing is dropped.
public final class CompositionInput: MediaSource {
  public typealias Audio = PCMBuffer
  public let timeline: CompositionTimeline
  public let video: VideoComposition
  public let audio: AudioMix?
  /// Frames in the composed movie.
  public let frameCount: Int
  /// Sample frames in its sound track.
  public let sampleCount: Int

  private let poolCapacity: Int
  /// The frames handed on, made on first use in the format the pipeline asked for.
  private var bgraPool: PixelBufferPool?
  private var yuv420Pool: YUV420FramePool?
  private var backdropBGRA: PixelBuffer?
  private var backdropYUV: YUV420Planes?
  private var rendersYUV420 = false
  /// Each item's pictures and sound, opened when its turn comes and closed after it.
  private var pictures: [ItemPictures?]
  private var sounds: [ItemSound?]
  private var opened: [Bool]
  private let music: MusicSound?
  private var nextFrame = 0
  private var nextSampleFrame: Int64 = 0
  private let itemStartSamples: [Int64]
  private let itemEndSamples: [Int64]

  /// Checks the items can be read (each is opened when its turn comes).
  /// - Parameter audio: the mix, or nil for a silent movie.
  /// - Throws: what opening the music throws.
  public init(timeline: CompositionTimeline, video: VideoComposition, audio: AudioMix?, poolCapacity: Int = 4) throws {
    self.timeline = timeline
    self.video = video
    self.audio = audio
    self.poolCapacity = poolCapacity
    frameCount = timeline.frameCount(frameDuration: video.frameDuration)
    sampleCount = audio.map { timeline.sampleCount(rate: $0.sampleRate) } ?? 0
    let count = timeline.placements.count
    pictures = Array(repeating: nil, count: count)
    sounds = Array(repeating: nil, count: count)
    opened = Array(repeating: false, count: count)
    music = try audio.flatMap { mix in try timeline.composition.music.map { try MusicSound($0, mix: mix) } }
    let rate = audio?.sampleRate ?? 1
    itemStartSamples = timeline.placements.map { CompositionTimeline.samples($0.start, rate: rate) }
    itemEndSamples = timeline.placements.map { CompositionTimeline.samples($0.end, rate: rate) }
  }

  public var geometry: FrameGeometry { video.renderSize }
  public var frameDuration: MediaTime? { video.frameDuration }
  public var isLive: Bool { false }
  public var hasAudio: Bool { audio != nil }
  public var pixelFormatName: String { rendersYUV420 ? "yuv420p" : "bgra" }

  /// Frames can come as yuv420p: every picture is fitted on even corners (the render
  /// size is even), and blends and fades work on the planes as they do on BGRA.
  public var canDeliverYUV420Frames: Bool { video.renderSize.width % 2 == 0 && video.renderSize.height % 2 == 0 }

  public func deliverYUV420Frames() {
    precondition(nextFrame == 0, "the format is chosen before the first frame")
    rendersYUV420 = true
  }

  /// Sound up to the next frame's time, then that frame; `nil` at the end.
  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    if let audio, nextSampleFrame < Int64(sampleCount) {
      let frameEnd = nextFrame < frameCount
        ? CompositionTimeline.samples(time(ofFrame: nextFrame + 1), rate: audio.sampleRate) : Int64(sampleCount)
      let end = min(frameEnd, Int64(sampleCount))
      if nextSampleFrame < end || nextFrame >= frameCount {
        return .audio(try mixSound(from: nextSampleFrame, until: max(end, nextSampleFrame + 1), audio))
      }
    }
    guard nextFrame < frameCount else { return nil }
    defer { nextFrame += 1 }
    return .video(try renderFrame(nextFrame))
  }

  private func time(ofFrame k: Int) -> MediaTime {
    MediaTime(value: video.frameDuration.value * Int64(k), timescale: video.frameDuration.timescale)
  }

  /// Opens item `index` when its turn comes (once).
  private func open(_ index: Int) throws {
    guard !opened[index] else { return }
    opened[index] = true
    let placement = timeline.placements[index]
    pictures[index] = try ItemPictures(placement, video: video, yuv420: rendersYUV420, poolCapacity: poolCapacity)
    if let audio, timeline.composition.music?.replacesSound != true {
      sounds[index] = try ItemSound(placement, mix: audio)
    }
  }

  // MARK: Pictures

  private func renderFrame(_ k: Int) throws -> VideoFrame {
    let t = time(ofFrame: k)
    let placements = timeline.placements
    // The items showing at t: one, or two in a cross-fade. Items whose turn is over are
    // closed (their decoders and buffers go).
    let showing = placements.indices.filter { placements[$0].start <= t && t < placements[$0].end }
    for index in 0..<(showing.first ?? placements.count) where pictures[index] != nil { pictures[index] = nil }
    var layers: [(VideoFrame, Double)] = []
    for (n, index) in showing.enumerated() {
      try open(index)
      guard let picture = try pictures[index]!.picture(at: t - placements[index].start) else { continue }
      let opacity = n == 0 ? 1 : Self.ratio(t - placements[index].start, timeline.composition.transition)
      layers.append((picture, opacity))
    }
    let fade = fadeLevel(at: t, last: time(ofFrame: frameCount - 1))
    if rendersYUV420 {
      // One decoder's picture, shown as it is, goes on without a copy: a stage that
      // filters in place copies a picture it does not own first. A picture the reader or
      // this composition owns is copied, since it may show again on the next frame and
      // the filters would change it in place.
      if layers.count == 1, fade == nil, case .yuv420(var decoded) = layers[0].0, !decoded.ownsItsPicture {
        decoded.presentationTime = t
        return .yuv420(decoded)
      }
      // Made when first needed: a join without fades may never need it.
      let pool = try yuv420Pool ?? YUV420FramePool(geometry: video.renderSize, capacity: poolCapacity, kind: .owned)
      yuv420Pool = pool
      let backdrop = backdropYUV ?? {
        let planes = YUV420Planes(width: video.renderSize.width, height: video.renderSize.height)
        planes.picture.fill(video.background, outside: PixelRectangle(x: 0, y: 0, width: 0, height: 0))
        return planes
      }()
      backdropYUV = backdrop
      guard let frame = try pool.acquire(presentationTime: t) else {
        throw RecordingOptionError("no frame came back to the composition's pool")
      }
      let output = frame.picture
      var drawn = false
      for (layer, opacity) in layers {
        guard case .yuv420(let shown) = layer else { continue }
        let picture = shown.picture
        if drawn {
          for plane in 0..<3 { FrameBlender.blend(output.plane(plane), toward: picture.plane(plane), weight: opacity) }
        } else {
          picture.copyPixels(to: output)
          drawn = true
        }
      }
      if !drawn { backdrop.picture.copyPixels(to: output) }
      if let fade {
        for plane in 0..<3 { FrameBlender.blend(output.plane(plane), toward: backdrop.picture.plane(plane), weight: 1 - fade) }
      }
      return .yuv420(frame)
    }
    let pool = bgraPool ?? PixelBufferPool(geometry: video.renderSize, capacity: poolCapacity)
    bgraPool = pool
    let backdrop = backdropBGRA ?? {
      let buffer = PixelBuffer(width: video.renderSize.width, height: video.renderSize.height)
      buffer.fill(video.background)
      return buffer
    }()
    backdropBGRA = backdrop
    guard let output = pool.acquire(presentationTime: t) else {
      throw RecordingOptionError("no frame came back to the composition's pool")
    }
    var drawn = false
    for (layer, opacity) in layers {
      guard case .bgra(let picture) = layer else { continue }
      if drawn {
        FrameBlender.blend(output, toward: picture, weight: opacity)
      } else {
        output.copyPixels(from: picture)
        drawn = true
      }
    }
    if !drawn { output.copyPixels(from: backdrop) }
    if let fade { FrameBlender.blend(output, toward: backdrop, weight: 1 - fade) }
    return .bgra(output)
  }

  /// How much of the picture or sound shows at `t` within the fades (nil: all of it):
  /// 0 at the very first and last frame or sample.
  private func fadeLevel(at t: MediaTime, last: MediaTime) -> Double? {
    let c = timeline.composition
    if c.fadeIn > .zero && t < c.fadeIn { return Self.ratio(t, c.fadeIn) }
    if c.fadeOut > .zero && last - t < c.fadeOut { return Self.ratio(last - t, c.fadeOut) }
    return nil
  }

  /// a / b as a fraction in 0...1.
  static func ratio(_ a: MediaTime, _ b: MediaTime) -> Double {
    guard b > .zero else { return 1 }
    return min(1, max(0, a.seconds / b.seconds))
  }

  // MARK: Sound

  private func mixSound(from first: Int64, until end: Int64, _ audio: AudioMix) throws -> PCMBuffer {
    let count = Int(end - first)
    let channels = audio.channels
    var mix = [Float](repeating: 0, count: count * channels)
    let fade = CompositionTimeline.samples(timeline.composition.transition, rate: audio.sampleRate)
    for index in timeline.placements.indices {
      let start = itemStartSamples[index], stop = itemEndSamples[index]
      guard start < end, stop > first else {
        if stop <= first { sounds[index] = nil }  // its turn is over
        continue
      }
      try open(index)
      guard let sound = sounds[index] else { continue }
      let from = max(first, start), to = min(end, stop)
      let hasPrevious = index > 0, hasNext = index < timeline.placements.count - 1
      try sound.add(from: from - start, count: Int(to - from), into: &mix, at: Int(from - first)) { local in
        // Equal-power ramps over the overlaps with the neighbours.
        if hasPrevious && fade > 0 && local < fade {
          return Float(sin(Double.pi / 2 * Double(local) / Double(fade)))
        }
        if hasNext && fade > 0 && local >= (stop - start) - fade {
          return Float(cos(Double.pi / 2 * Double(local - ((stop - start) - fade)) / Double(fade)))
        }
        return 1
      }
    }
    if let music, let volume = timeline.composition.music?.volume {
      let samples = try music.next(count)
      let gain = Float(volume)
      for (i, v) in zip(mix.indices, samples) { mix[i] += Float(v) * gain }
    }
    // Fades from and to silence, reaching it on the first and last sample.
    let c = timeline.composition
    let fadeIn = CompositionTimeline.samples(c.fadeIn, rate: audio.sampleRate)
    let fadeOut = CompositionTimeline.samples(c.fadeOut, rate: audio.sampleRate)
    let last = Int64(sampleCount) - 1
    var samples = [Int16](repeating: 0, count: count * channels)
    for i in 0..<count {
      let n = first + Int64(i)
      var level: Float = 1
      if fadeIn > 0 && n < fadeIn { level = Float(n) / Float(fadeIn) }
      if fadeOut > 0 && last - n < fadeOut { level = min(level, Float(max(0, last - n)) / Float(fadeOut)) }
      for ch in 0..<channels {
        let v = (mix[i * channels + ch] * level).rounded()
        samples[i * channels + ch] = Int16(max(-32768, min(32767, v)))
      }
    }
    nextSampleFrame = end
    return PCMBuffer(
      samples: samples, channels: channels, sampleRate: audio.sampleRate,
      presentationTime: MediaTime(value: first, timescale: Int32(audio.sampleRate)))
  }
}

/// Blends pictures of one size in place: BGRA frames, or yuv420p planes one at a time.
enum FrameBlender {
  /// `frame = frame · (1 − weight) + other · weight`, rounded, on every byte; at 0.5 the
  /// rounded mean.
  static func blend(_ frame: PixelBuffer, toward other: PixelBuffer, weight: Double) {
    frame.withUnsafeMutableBytes { dst in
      other.withUnsafeBytes { src in
        blend(
          (base: (dst + frame.offset).assumingMemoryBound(to: UInt8.self), stride: frame.bytesPerRow, width: frame.width * 4,
           height: frame.height),
          toward: (base: UnsafeMutablePointer(mutating: (src + other.offset).assumingMemoryBound(to: UInt8.self)),
                   stride: other.bytesPerRow, width: other.width * 4, height: other.height),
          weight: weight)
      }
    }
  }

  /// The same on one plane of bytes (`width` bytes a row).
  static func blend(
    _ plane: (base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int),
    toward other: (base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int), weight: Double
  ) {
    let w = UInt16((max(0, min(1, weight)) * 256).rounded())
    guard w > 0 else { return }
    let keep = SIMD16<UInt16>(repeating: 256 - w), take = SIMD16<UInt16>(repeating: w)
    let half = SIMD16<UInt16>(repeating: 128)
    for y in 0..<plane.height {
      let d = plane.base + y * plane.stride
      let s = other.base + y * other.stride
      if w >= 256 {
        d.update(from: s, count: plane.width)
        continue
      }
      var x = 0
      while x + 16 <= plane.width {
        let a = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(d + x).loadUnaligned(as: SIMD16<UInt8>.self))
        let b = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(s + x).loadUnaligned(as: SIMD16<UInt8>.self))
        let mixed = (a &* keep &+ b &* take &+ half) &>> 8
        UnsafeMutableRawPointer(d + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: mixed), as: SIMD16<UInt8>.self)
        x += 16
      }
      while x < plane.width {
        d[x] = UInt8((UInt16(d[x]) * (256 - w) + UInt16(s[x]) * w + 128) >> 8)
        x += 1
      }
    }
  }
}
