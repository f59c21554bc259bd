import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPixelFormats

/// How every frame goes from the source through the filter chain to the encoder's
/// yuv420p picture, negotiated once when the session is set up, as GStreamer settles a
/// pipeline's caps before the first buffer.
///
/// yuv420p is the working format. A chain runs in two parts:
///
///     source ──▶ yuv420p filters ──▶ [yuv420p → BGRA] ──▶ BGRA filters ──▶ [BGRA → yuv420p] ──▶ encoder
///
/// - the *yuv420p part*: the filters before the first one that cannot take yuv420p
///   (frei0r, `grayscale=matrix=bt709`, a user's BGRA-only filter), run on the planes;
/// - the *BGRA part*: that filter and every one after it, run on BGRA and converted
///   back to yuv420p once at the end. Staying in BGRA after the first BGRA-only filter
///   costs one conversion each way whatever the chain holds; a yuv420p filter runs on
///   BGRA just as well.
///
/// When the BGRA part is row-local and keeps the size, it runs in bands of 16 rows
/// converted from yuv420p and back, which stay in the core's cache (see
/// `runInRowBands`); the band conversion then covers the row-local filters before it
/// too, which saves their pass over whole pictures.
///
/// The source is asked for yuv420p when it can deliver it (a camera's YUYV or NV12, a
/// movie's decoded pictures) unless the chain needs BGRA from its first filter on whole
/// frames: then the source's own conversion to BGRA (straight from YUYV, say) is the
/// one conversion. A source that makes BGRA (testsrc, a PNG) runs the whole chain on
/// BGRA and is converted once at the end.
final class FramePath {
  enum Format: Equatable {
    case yuv420, bgra
  }

  /// The format the source is asked for.
  let sourceFormat: Format
  /// The filters run on yuv420p pictures (possibly none).
  private let yuv420Part: FilterChain
  /// Pictures between the yuv420p part's filters when it changes size before its last one.
  private let intermediates: [YUV420Planes]
  /// The yuv420p part's output pictures: the encoder's when there is no BGRA part.
  private let yuv420Output: YUV420FramePool?
  /// True when the yuv420p part may run in place on a source's picture that allows it
  /// (`YUV420Frame.ownsItsPicture`): its filters keep the size.
  private let yuv420PartInPlace: Bool
  /// The first filters of the yuv420p part when they run on bands of yuv420p pictures:
  /// given to the source to run as it converts (`MediaSource.filterWhileConverting`).
  let sourceBandFilters: FilterChain?
  /// The rest of the yuv420p part, run in place on the frames the source filtered.
  private let yuv420PartAfterBands: FilterChain?
  /// The filters run on BGRA, and how.
  private let bgraPart: BGRAPart?
  /// The encoder-ready pictures the BGRA part converts into.
  private let bgraOutput: YUV420FramePool?
  /// The steps, by name, for `describe`.
  private let steps: [String]

  private enum BGRAPart {
    /// In bands of rows converted from the yuv420p picture and back; `band` is reused.
    case rowBands(FilterChain, band: PixelBuffer)
    /// On whole frames: `converted` holds the yuv420p picture turned to BGRA (none when
    /// the source delivers BGRA), `buffers` what the chain's resizing filters write.
    case wholeFrames(FilterChain, converted: PixelBufferPool?, buffers: FilterChainBuffers)
  }

  /// - Parameters:
  ///   - chain: configured for the source's size.
  ///   - sourceCanDeliverYUV420: whether the source can hand on yuv420p pictures.
  ///   - capacity: encoder-ready pictures: the frames the writer's ring holds, plus the
  ///     one being written and the one being encoded.
  ///   - yuv420Filters, rowBands, inPlace, sourceBands: `false` turns that way of
  ///     running filters off (to compare the ways in tests and benchmarks); with the
  ///     first two off, a chain runs on whole BGRA frames, without `inPlace` the yuv420p
  ///     filters always write a picture of their own, and without `sourceBands` no
  ///     filter runs in the source's conversion.
  init(
    chain: FilterChain, sourceCanDeliverYUV420: Bool, capacity: Int, yuv420Filters: Bool = true, rowBands: Bool = true,
    inPlace: Bool = true, sourceBands: Bool = true
  ) throws {
    guard let input = chain.inputGeometry, let output = chain.outputGeometry else {
      preconditionFailure("configure the chain before negotiating its frame path")
    }
    let count = chain.filters.count
    // The first filter that needs BGRA: the BGRA part starts there.
    var split = sourceCanDeliverYUV420 ? (0..<count).first { !(yuv420Filters && chain.acceptsYUV420(filterAt: $0)) } ?? count : 0
    var bands = false
    if sourceCanDeliverYUV420 && split < count && rowBands && chain.subchain(split..<count).isRowLocal {
      bands = true
      // Bands take the row-local filters before the split too (they keep the size).
      while split > 0 && chain.subchain(split - 1..<count).isRowLocal { split -= 1 }
    }
    // The source's own BGRA when it has no yuv420p, or the chain needs whole BGRA frames
    // from its first filter on.
    sourceFormat = !sourceCanDeliverYUV420 || (count > 0 && split == 0 && !bands) ? .bgra : .yuv420
    yuv420Part = chain.subchain(0..<split)
    intermediates = split > 0 ? yuv420Part.makeYUV420Intermediates() : []
    yuv420PartInPlace = inPlace && split > 0 && yuv420Part.runsInPlaceOnYUV420
    // The longest run of band filters at the head of an in-place yuv420p part: a
    // source that converts its pictures runs them on each band it has just written.
    let part = yuv420Part
    let banded = !sourceBands || !yuv420PartInPlace ? 0 : (0...split).last { part.subchain(0..<$0).runsOnYUV420Bands } ?? 0
    sourceBandFilters = banded > 0 ? part.subchain(0..<banded) : nil
    yuv420PartAfterBands = banded > 0 ? part.subchain(banded..<split) : nil
    let yuv420PartOutput = yuv420Part.outputGeometry ?? input
    // The yuv420p part writes the encoder's pictures, or one the BGRA part reads at once.
    yuv420Output = split > 0 ? try YUV420FramePool(geometry: yuv420PartOutput, capacity: split == count ? capacity : 1, kind: .owned) : nil
    var steps: [String] = []
    if sourceFormat == .yuv420 { steps.append("yuv420p") }
    steps += yuv420Part.names
    if sourceFormat == .bgra || split < count {
      let part = chain.subchain(split..<count)
      if bands {
        bgraPart = .rowBands(part, band: PixelBuffer(width: output.width, height: min(YUV420Picture.bandRows, output.height)))
        steps.append("bgra in row bands")
      } else {
        bgraPart = .wholeFrames(
          part, converted: sourceFormat == .yuv420 ? PixelBufferPool(geometry: yuv420PartOutput, capacity: 1) : nil,
          buffers: part.makeBuffers(capacity: 1))
        steps.append("bgra")
      }
      steps += part.names
      steps.append("yuv420p")
      bgraOutput = try YUV420FramePool(geometry: output, capacity: capacity, kind: .owned)
    } else {
      bgraPart = nil
      bgraOutput = nil
    }
    self.steps = steps
  }

  /// The path from a source whose pictures come as `sourcePixelFormat` to the encoder,
  /// e.g. `yuyv422 → yuv420p → mirror → encoder` or
  /// `rgb24 → bgra → frei0r → yuv420p → encoder`.
  func describe(sourcePixelFormat: String) -> String {
    var path = [sourcePixelFormat]
    for step in steps where path.last != step { path.append(step) }
    return (path + ["encoder"]).joined(separator: " → ")
  }

  /// True when the BGRA part runs in row bands.
  var usesRowBands: Bool {
    if case .rowBands = bgraPart { return true } else { return false }
  }

  /// True when every filter runs on yuv420p pictures (no BGRA at all).
  var isYUV420Only: Bool { sourceFormat == .yuv420 && bgraPart == nil }

  /// The encoder's picture for `frame` (in the format `sourceFormat` asked for),
  /// filtered. Returns nil only if `shouldStop` turns true while every picture of a
  /// pool is held downstream.
  /// - Throws: `FFmpegError` when a picture still held by the encoder cannot get fresh
  ///   buffers.
  func process(_ frame: VideoFrame, shouldStop: () -> Bool) throws -> YUV420Frame? {
    var picture: YUV420Frame
    switch frame {
    case .yuv420(let source):
      guard let yuv420Output else {
        picture = source
        break
      }
      // A picture the source filtered as it converted it gets the rest of the part.
      if source.filteredWhileConverting, let yuv420PartAfterBands {
        yuv420PartAfterBands.process(yuv420InPlace: source.picture)
        picture = source
        break
      }
      // A picture the source keeps nothing of is filtered where it is: no second
      // picture to write, half the memory traffic (a camera's, a converted file's).
      if yuv420PartInPlace && source.ownsItsPicture {
        yuv420Part.process(yuv420InPlace: source.picture)
        picture = source
        break
      }
      guard let out = try yuv420Output.acquire(presentationTime: source.presentationTime, shouldStop: shouldStop) else {
        return nil
      }
      yuv420Part.process(yuv420: source.picture, into: out.picture, using: intermediates)
      picture = out
    case .bgra(let buffer):
      precondition(sourceFormat == .bgra, "a BGRA frame on a path negotiated for yuv420p")
      return try runOnWholeFrames(.bgra(buffer), shouldStop: shouldStop)
    }
    guard bgraPart != nil else { return picture }
    if usesRowBands { return try runInRowBands(picture, shouldStop: shouldStop) }
    return try runOnWholeFrames(.yuv420(picture), shouldStop: shouldStop)
  }

  /// The BGRA part on a whole frame: `frame` converted to BGRA if it is not, the
  /// filters, and the conversion to the encoder's yuv420p.
  private func runOnWholeFrames(_ frame: VideoFrame, shouldStop: () -> Bool) throws -> YUV420Frame? {
    guard case .wholeFrames(let chain, let converted, let buffers) = bgraPart, let bgraOutput else {
      preconditionFailure("no BGRA part on whole frames")
    }
    var buffer: PixelBuffer
    switch frame {
    case .bgra(let source): buffer = source
    case .yuv420(let source):
      guard let pool = converted, let made = pool.acquire(presentationTime: source.presentationTime, shouldStop: shouldStop)
      else { return nil }
      PixelConverter.convertI420(source.picture, to: made)
      buffer = made
    }
    guard let filtered = chain.process(buffer, using: buffers, shouldStop: shouldStop),
      let out = try bgraOutput.acquire(presentationTime: buffer.presentationTime, shouldStop: shouldStop)
    else { return nil }
    BGRAToYUV420.convert(filtered, into: out.picture)
    return out
  }

  /// The BGRA part in bands of rows, the way Core Image renders a filter graph tile by
  /// tile:
  ///
  ///     Y/U/V rows r..r+15 ──▶ BGRA band (in cache) ──▶ filters ──▶ Y/U/V rows r..r+15
  ///
  /// Whole frames are 8 MB of BGRA at 1080p, more than the CPU's caches: converting a
  /// frame, filtering it and converting it back as three passes streams each one through
  /// memory twice more, while another thread's encoder wants the same memory bandwidth.
  /// A band of 16 rows (120 KB at 1080p) stays in the core's L2 cache from the first
  /// conversion to the last, so only the two yuv420p pictures cross memory. The pixels
  /// are exactly the three passes' pixels: the same kernels run on the same rows (bands
  /// start on even rows, so each one owns its chroma rows), and a row-local filter gives
  /// the whole frame's pixels on any band.
  private func runInRowBands(_ source: YUV420Frame, shouldStop: () -> Bool) throws -> YUV420Frame? {
    guard case .rowBands(let chain, let band) = bgraPart, let bgraOutput else { preconditionFailure("no row bands") }
    guard let out = try bgraOutput.acquire(presentationTime: source.presentationTime, shouldStop: shouldStop) else {
      return nil
    }
    let input = source.picture, output = out.picture
    var firstRow = 0
    while firstRow < input.height {
      let rows = min(YUV420Picture.bandRows, input.height - firstRow)
      var rgb = band
      if rows < band.height { rgb.crop(x: 0, y: 0, width: input.width, height: rows) }
      rgb.presentationTime = source.presentationTime
      PixelConverter.convertI420(input.band(firstRow: firstRow, rows: rows), to: rgb)
      chain.process(band: &rgb, firstRow: firstRow)
      BGRAToYUV420.convert(rgb, into: output.band(firstRow: firstRow, rows: rows))
      firstRow += rows
    }
    return out
  }
}
