import CamfxFrames
#if canImport(Glibc)
import Glibc
#endif
import CamfxCapture
import CamfxCore
import CamfxMedia
import CamfxMosaic
import CamfxPixelFormats

extension BenchCase {
  /// The adaptor's BGRA → yuv420p conversion (the SIMD kernel).
  public static let bgraToYUV420Name = "bgra-to-yuv420p"
  /// The camera converters, packed YUYV and two-plane NV12 to BGRA.
  public static let yuyvToBGRAName = "yuyv-to-bgra"
  public static let nv12ToBGRAName = "nv12-to-bgra"
  /// An NV12 camera frame into the yuv420p picture a chain and the encoder work on (Y
  /// copied, U and V split): what a filter working on NV12 itself would save.
  public static let nv12ToYUV420Name = "nv12-to-yuv420p"
  /// A YUYV camera frame through `mirror` into the encoder's yuv420p picture: converted
  /// to BGRA, mirrored and converted back (the path every camera took before format
  /// negotiation), and converted straight to yuv420p and mirrored there (what a chain
  /// of yuv420p filters takes now).
  public static let yuyvMirrorViaBGRAName = "yuyv-mirror-via-bgra"
  public static let yuyvMirrorYUV420Name = "yuyv-mirror-yuv420p"
  /// The mosaic (`Mosaic`): two yuv420p pictures of the row's size side by side in one
  /// twice as wide (each copied into its half), and four in a grid of the row's size
  /// (each scaled to half: the mosaic's default for a picture that shrinks, `area`, the
  /// 2×2 mean); per frame, every camera's `update` and one
  /// `compose`. Bytes are the output picture's.
  public static let mosaicHStackName = "mosaic-hstack"
  public static let mosaicGridName = "mosaic-grid"
  /// `FrameRing<Int>` between two threads.
  public static let ringName = "ring"
  /// A transcode's filter-stage work on one decoded yuv420p picture through
  /// `mirror,watermark` (the built-in mark, centred) into the encoder's picture, each
  /// way a `FramePath` can run it: on the planes themselves (what a transcode with these
  /// filters runs); converted to BGRA and back in row bands (what a row-local chain with
  /// a BGRA-only filter runs); and as three passes over whole BGRA frames.
  public static let yuv420FilterPassName = "yuv420-filter-pass"
  public static let rowBandPassName = "row-band-pass"
  public static let wholeFramePassName = "whole-frame-pass"

  /// How a transcode-pass row runs the chain.
  enum TranscodePass {
    case yuv420, rowBands, wholeFrames

    var name: String {
      switch self {
      case .yuv420: return yuv420FilterPassName
      case .rowBands: return rowBandPassName
      case .wholeFrames: return wholeFramePassName
      }
    }
  }

  /// The names of the pipeline rows, which `--filter` also accepts.
  public static let pipelineNames = [
    bgraToYUV420Name, yuyvToBGRAName, nv12ToBGRAName, nv12ToYUV420Name, mjpegToYUV420Name, mjpegToYUV420LibavcodecName,
    yuv420FilterPassName, rowBandPassName, wholeFramePassName,
    yuyvMirrorViaBGRAName, yuyvMirrorYUV420Name, motionName, mosaicHStackName, mosaicGridName, ringName,
  ]

  /// The ring row's size column: it moves one `Int` per item, not frames.
  public static let ringSize = FrameGeometry(width: 1, height: 1)

  /// For each size the adaptor's converter and the camera converters, then the ring
  /// once (its speed does not depend on frame size).
  ///
  /// - Parameter names: only the rows with these names (`nil`: all).
  public static func pipelineCases(sizes: [FrameGeometry] = defaultSizes, names: Set<String>? = nil) -> [BenchCase] {
    var cases: [BenchCase] = []
    for size in sizes {
      cases.append(bgraToYUV420(size))
      cases.append(yuyvToBGRA(size))
      cases.append(nv12Conversion(size, toYUV420: false))
      cases.append(nv12Conversion(size, toYUV420: true))
      cases.append(mjpegDecode(size, turboJPEG: true))
      cases.append(mjpegDecode(size, turboJPEG: false))
      cases.append(transcodePass(size, .yuv420))
      cases.append(transcodePass(size, .rowBands))
      cases.append(transcodePass(size, .wholeFrames))
      cases.append(yuyvMirror(size, viaBGRA: true))
      cases.append(yuyvMirror(size, viaBGRA: false))
      cases.append(motion(size))
      cases.append(mosaic(size, hstack: true))
      cases.append(mosaic(size, hstack: false))
    }
    cases.append(ring())
    guard let names else { return cases }
    return cases.filter { names.contains($0.name) }
  }

  /// `MotionDetector.analyze` on a frame's luma plane.
  public static let motionName = "motion-detect"

  /// `MotionDetector.analyze` on a yuv420p frame's luma plane (default options), the
  /// test pattern's plane with a band that moves every frame; bytes are the plane's.
  static func motion(_ size: FrameGeometry) -> BenchCase {
    BenchCase(name: motionName, size: size, bytesPerFrame: size.pixelCount, filter: motionName) {
      let detector = try MotionDetector(width: size.width, height: size.height, options: .init())
      var plane = patternBytes(size.pixelCount)
      var frame = 0
      let side = min(96, size.width / 4, size.height / 4)
      return {
        // A box that moves each frame (drawn by inverting it, and inverted back after),
        // so the detector finds and boxes something.
        let left = (frame * 8) % max(1, size.width - side), top = size.height / 3
        plane.withUnsafeMutableBufferPointer { plane in
          func invert() {
            for y in top..<(top + side) { for x in left..<(left + side) { plane[y * size.width + x] = ~plane[y * size.width + x] } }
          }
          invert()
          _ = detector.analyze(
            LumaPicture(
              base: UnsafePointer(plane.baseAddress!), width: size.width, height: size.height, bytesPerRow: size.width,
              layout: .luma),
            at: Double(frame) / 30)
          invert()
        }
        frame += 1
      }
    }
  }

  /// A mosaic of solid pictures of `size`: an hstack of two (output twice as wide) or
  /// a grid of four (output of `size`).
  static func mosaic(_ size: FrameGeometry, hstack: Bool) -> BenchCase {
    let name = hstack ? mosaicHStackName : mosaicGridName
    let output = FrameGeometry(width: (hstack ? 2 * size.width : size.width) & ~1, height: size.height & ~1)
    return BenchCase(name: name, size: size, bytesPerFrame: output.pixelCount * 3 / 2, filter: name) {
      let cameras = hstack ? ["left", "right"] : ["a", "b", "c", "d"]
      let mosaic = try Mosaic(layout: hstack ? .hstack : .grid, cameras: cameras, size: output)
      let pictures = try cameras.indices.map { i in
        let frame = try YUV420Frame(geometry: size)
        let picture = frame.picture
        for plane in 0..<3 {
          let p = picture.plane(plane)
          for row in 0..<p.height { (p.base + row * p.stride).update(repeating: UInt8(40 + 50 * i + 20 * plane), count: p.width) }
        }
        return frame
      }
      return {
        for (camera, picture) in zip(cameras, pictures) { try? mosaic.update(camera: camera, frame: picture) }
        _ = try? mosaic.compose(at: Mosaic.now())
      }
    }
  }

  /// `BGRAToYUV420.convert` with the SIMD kernel; bytes are the BGRA frame's.
  static func bgraToYUV420(_ size: FrameGeometry) -> BenchCase {
    BenchCase(name: bgraToYUV420Name, size: size, bytesPerFrame: size.pixelCount * 4, filter: bgraToYUV420Name) {
      let frame = patternFrame(size)
      let planes = YUV420Planes(width: size.width, height: size.height)
      return { BGRAToYUV420.convert(frame, into: planes, kernel: .simd) }
    }
  }

  /// `PixelConverter.convertYUYV` from a prepared YUYV frame; bytes are the BGRA frame's.
  static func yuyvToBGRA(_ size: FrameGeometry) -> BenchCase {
    BenchCase(name: yuyvToBGRAName, size: size, bytesPerFrame: size.pixelCount * 4, filter: yuyvToBGRAName) {
      // Whole Y0 Cb Y1 Cr groups per row, as V4L2 delivers odd widths.
      let rowBytes = (size.width + 1) / 2 * 4
      let source = patternBytes(rowBytes * size.height)
      let destination = PixelBuffer(width: size.width, height: size.height)
      return {
        source.withUnsafeBytes { PixelConverter.convertYUYV(source: $0.baseAddress!, sourceBytesPerRow: rowBytes, to: destination) }
      }
    }
  }

  /// A YUYV frame through mirror into a yuv420p picture, by either path; bytes are the
  /// BGRA frame's (the same for both, so the GB/s columns compare).
  static func yuyvMirror(_ size: FrameGeometry, viaBGRA: Bool) -> BenchCase {
    let name = viaBGRA ? yuyvMirrorViaBGRAName : yuyvMirrorYUV420Name
    return BenchCase(name: name, size: size, bytesPerFrame: size.pixelCount * 4, filter: name) {
      let rowBytes = (size.width + 1) / 2 * 4
      let source = patternBytes(rowBytes * size.height)
      let planes = YUV420Planes(width: size.width, height: size.height)
      var configured = Mirror(axis: .horizontal)
      _ = try configured.configure(input: size)
      let mirror = configured
      if viaBGRA {
        var frame = PixelBuffer(width: size.width, height: size.height)
        return {
          source.withUnsafeBytes { YUVSourceLayout.yuyv($0.baseAddress!, bytesPerRow: rowBytes).convert(to: frame) }
          mirror.process(&frame)
          BGRAToYUV420.convert(frame, into: planes)
        }
      }
      return {
        source.withUnsafeBytes { YUVSourceLayout.yuyv($0.baseAddress!, bytesPerRow: rowBytes).convert(to: planes.picture) }
        mirror.process(yuv420: planes.picture, into: planes.picture)
      }
    }
  }

  /// An NV12 frame from prepared Y and CbCr planes, converted by `YUVSourceLayout` to BGRA
  /// (bytes: the BGRA frame's) or to a yuv420p picture (bytes: the picture's).
  static func nv12Conversion(_ size: FrameGeometry, toYUV420: Bool) -> BenchCase {
    let name = toYUV420 ? nv12ToYUV420Name : nv12ToBGRAName
    let pictureBytes = size.width * size.height + 2 * ((size.width + 1) / 2) * ((size.height + 1) / 2)
    return BenchCase(name: name, size: size, bytesPerFrame: toYUV420 ? pictureBytes : size.pixelCount * 4, filter: name) {
      let lumaRow = size.width, chromaRow = (size.width + 1) / 2 * 2
      let luma = patternBytes(lumaRow * size.height)
      let chroma = patternBytes(chromaRow * ((size.height + 1) / 2))
      let planes = toYUV420 ? YUV420Planes(width: size.width, height: size.height) : nil
      let frame = toYUV420 ? nil : PixelBuffer(width: size.width, height: size.height)
      return {
        luma.withUnsafeBytes { y in
          chroma.withUnsafeBytes { c in
            let layout = YUVSourceLayout.nv12(
              luma: y.baseAddress!, lumaBytesPerRow: lumaRow, chroma: c.baseAddress!, chromaBytesPerRow: chromaRow)
            if let planes { layout.convert(to: planes.picture) } else if let frame { layout.convert(to: frame) }
          }
        }
      }
    }
  }

  /// Pictures the transcode-pass rows cycle through, so that, as in a real transcode,
  /// each frame comes from memory rather than from the cache (8 × 1080p is more than
  /// the L3 cache of the machines camfx is measured on).
  static let transcodePassFrames = 8

  /// The filter stage's work on one decoded picture, run as `pass` says; bytes are the
  /// BGRA frame's (the same for every pass, so the GB/s columns compare).
  static func transcodePass(_ size: FrameGeometry, _ pass: TranscodePass) -> BenchCase {
    let name = pass.name
    return BenchCase(name: name, size: size, bytesPerFrame: size.pixelCount * 4, filter: name) {
      // Centred, the mark overlaps frames of any size.
      var chain = try FilterRegistry.builtin.makeChain(["mirror", "watermark=position=center"])
      try chain.configure(input: size)
      let count = transcodePassFrames
      // Decoded-picture stand-ins: owned frames filled with the test pattern in yuv420p.
      let sources = try YUV420FramePool(geometry: size, capacity: count, kind: .owned)
      let pictures = try (0..<count).map { _ in try sources.acquire(presentationTime: .zero)! }
      let pattern = patternFrame(size)
      for picture in pictures {
        pattern.withUnsafeBytes { pixels in
          BGRAToYUV420.convert(
            source: pixels, sourceBytesPerRow: pattern.bytesPerRow, width: size.width, height: size.height,
            y: picture.y, yStride: picture.yStride, u: picture.u, uStride: picture.uStride,
            v: picture.v, vStride: picture.vStride)
        }
      }
      let path = try FramePath(
        chain: chain, sourceCanDeliverYUV420: true, capacity: count, yuv420Filters: pass == .yuv420,
        rowBands: pass != .wholeFrames, inPlace: false)  // decoded pictures are never written
      var outputs = [YUV420Frame?](repeating: nil, count: count)
      var next = 0
      return {
        outputs[next] = nil  // gives the output picture back to the path's pool first
        outputs[next] = try! path.process(.yuv420(pictures[next]), shouldStop: { false })
        next = (next + 1) % count
      }
    }
  }

  /// One `Int` pushed per call from the benchmark thread into a `FrameRing<Int>` that a
  /// second thread drains, so frames/s is items/s through the ring (with back-pressure
  /// when the consumer is slower). No bytes are counted, so there is no GB/s.
  static func ring() -> BenchCase {
    BenchCase(name: ringName, size: ringSize, bytesPerFrame: 0, filter: ringName) {
      let pair = try BenchRingPair(capacity: 1024)
      var next = 0
      return {
        _ = pair.ring.push(next)
        next &+= 1
      }
    }
  }

  /// `count` bytes of deterministic noise (the same LCG as `patternFrame`).
  static func patternBytes(_ count: Int) -> [UInt8] {
    var state: UInt32 = 0x8765_4321
    return (0..<max(count, 1)).map { _ in
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
  }
}
