#if canImport(Glibc)
import Glibc
#endif

extension BenchCase {
  /// The name of the reference row every other row of the same size is compared with.
  public static let memcpyName = "memcpy"

  /// The sizes `camfx bench` measures when no `--size` is given.
  public static let defaultSizes = [FrameGeometry(width: 1280, height: 720), FrameGeometry(width: 1920, height: 1080)]

  /// The watermark benchmark's mark size (the one issue 5 compares with libyuv).
  public static let benchMarkSize = FrameGeometry(width: 256, height: 64)

  /// For each size: memcpy of the frame (the reference), then every built-in filter.
  ///
  /// - Parameter filters: only the filters with these names (`nil`: all); memcpy is
  ///   always included so that every row has its ratio.
  public static func filterCases(sizes: [FrameGeometry] = defaultSizes, filters: Set<String>? = nil) -> [BenchCase] {
    var cases: [BenchCase] = []
    for size in sizes {
      let frameBytes = size.pixelCount * PixelBuffer.bytesPerPixel
      cases.append(memcpy(size))
      cases.append(inPlace("grayscale", size, bytes: frameBytes, Grayscale(matrix: .bt601)))
      cases.append(inPlace("mirror", size, bytes: frameBytes, Mirror(axis: .horizontal)))
      cases.append(inPlace("mirror vertical", size, bytes: frameBytes, Mirror(axis: .vertical), filter: Mirror.name))
      cases.append(cropView(size))
      cases.append(cropCopy(size))
      cases.append(watermark(size))
      let twoThirds = FrameGeometry(width: size.width * 2 / 3 & ~1, height: size.height * 2 / 3 & ~1)
      let half = FrameGeometry(width: size.width / 2, height: size.height / 2)
      let scales: [(FrameGeometry, ScaleMethod)] = [
        (twoThirds, .bilinear), (twoThirds, .fastBilinear), (twoThirds, .bicubic), (half, .bilinear), (half, .area),
      ]
      for (target, method) in scales {
        cases.append(resizing(
          "scale \(target) \(method.rawValue)", size, try? Scale(width: target.width, height: target.height, method: method)))
      }
      cases.append(timestamp(size))
      cases.append(inPlace("color", size, bytes: frameBytes, Color(brightness: 0.1, contrast: 1.3, saturation: 1.5)))
      cases.append(resizing("rotate 90", size, Rotate(angle: .quarter)))
      cases.append(resizing("pad +64", size, Pad(width: size.width + 64, height: size.height + 64)))
      cases.append(resizing("fit \(twoThirds.height * 4 / 3)x\(twoThirds.height)", size,
        Fit(width: twoThirds.height * 4 / 3, height: twoThirds.height)))
    }
    guard let filters else { return cases }
    return cases.filter { $0.filter == nil || filters.contains($0.filter!) }
  }

  /// memcpy of one whole frame (both buffers 64-byte aligned, rows padded as the pool's).
  static func memcpy(_ size: FrameGeometry) -> BenchCase {
    BenchCase(name: memcpyName, size: size, bytesPerFrame: size.pixelCount * 4) {
      let source = patternFrame(size), destination = PixelBuffer(width: size.width, height: size.height)
      let byteCount = source.bytesPerRow * source.height
      return {
        _ = Glibc.memcpy(destination.storage.baseAddress, source.storage.baseAddress, byteCount)
      }
    }
  }

  /// A filter run in place on the same frame over and over.
  static func inPlace<F: InPlaceVideoFilter>(_ name: String, _ size: FrameGeometry, bytes: Int, _ filter: F, filter key: String? = nil) -> BenchCase {
    BenchCase(name: name, size: size, bytesPerFrame: bytes, filter: key ?? F.name) {
      var configured = filter
      _ = try configured.configure(input: size)
      var frame = patternFrame(size)
      let ready = configured
      return { ready.process(&frame) }
    }
  }

  /// A resizing filter from one source frame into one destination frame, over and over;
  /// bytes are the source frame's.
  static func resizing<F: ResizingVideoFilter>(_ name: String, _ size: FrameGeometry, _ filter: F?) -> BenchCase {
    BenchCase(name: name, size: size, bytesPerFrame: size.pixelCount * 4, filter: F.name) {
      guard var configured = filter else { throw FilterError(filter: F.name, reason: "cannot be set up for \(size)") }
      let output = try configured.configure(input: size)
      let source = patternFrame(size)
      var destination = PixelBuffer(width: output.width, height: output.height)
      let ready = configured
      return { ready.process(source, into: &destination) }
    }
  }

  /// `timestamp` (19 characters, at 32 px on frames from 640 wide, smaller on smaller
  /// ones) on frames 1/30 s apart: a frame whose text did not change costs a blend of
  /// the kept strip, one in 30 redraws it.
  static func timestamp(_ size: FrameGeometry) -> BenchCase {
    BenchCase(name: "timestamp", size: size, bytesPerFrame: size.pixelCount * 4, filter: Timestamp.name) {
      let pixels = min(32, max(4, size.width / 20))
      let options = try FilterOptions(
        filter: Timestamp.name, table: Timestamp.options, arguments: [("size", "\(pixels)"), ("margin", "0")])
      var filter = try Timestamp(options: options)
      _ = try filter.configure(input: size)
      var frame = patternFrame(size)
      let ready = filter
      var index: Int64 = 0
      return {
        frame.presentationTime = MediaTime(value: index, timescale: 30)
        index += 1
        ready.process(&frame)
      }
    }
  }

  /// The rectangle the crop rows keep: half of each side, centred.
  static func cropSize(_ size: FrameGeometry) -> FrameGeometry {
    FrameGeometry(width: max(1, size.width / 2), height: max(1, size.height / 2))
  }

  /// Crop as the pipeline does it: a new view on the same storage, nothing copied.
  static func cropView(_ size: FrameGeometry) -> BenchCase {
    let kept = cropSize(size)
    // No bytes move, so the row has no GB/s.
    return BenchCase(name: "crop (view)", size: size, bytesPerFrame: 0, filter: Crop.name) {
      var crop = Crop(width: kept.width, height: kept.height)
      _ = try crop.configure(input: size)
      let frame = patternFrame(size)
      let sink = BenchSink()
      let ready = crop
      return {
        var view = frame
        ready.process(&view)
        sink.value &+= view.offset
      }
    }
  }

  /// Crop followed by a copy of the kept rectangle into its own buffer (what a stage
  /// needing contiguous memory would do), for comparison with libyuv's ARGBCopy.
  static func cropCopy(_ size: FrameGeometry) -> BenchCase {
    let kept = cropSize(size)
    return BenchCase(name: "crop + copy", size: size, bytesPerFrame: kept.pixelCount * 4, filter: Crop.name) {
      var crop = Crop(width: kept.width, height: kept.height)
      _ = try crop.configure(input: size)
      let frame = patternFrame(size)
      let destination = PixelBuffer(width: kept.width, height: kept.height)
      let ready = crop
      return {
        var view = frame
        ready.process(&view)
        destination.copyPixels(from: view)
      }
    }
  }

  /// A 256×64 mark with every alpha from 0 to 255, bottom-right with the default margin.
  static func watermark(_ size: FrameGeometry) -> BenchCase {
    let m = benchMarkSize
    return BenchCase(
      name: "watermark \(m)", size: size, bytesPerFrame: m.pixelCount * 4, filter: Watermark.name
    ) {
      let mark = patternFrame(m)
      mark.withUnsafeMutableBytes { base in
        for y in 0..<m.height {
          for x in 0..<m.width { base.storeBytes(of: UInt8(x & 255), toByteOffset: y * mark.bytesPerRow + x * 4 + 3, as: UInt8.self) }
        }
      }
      var watermark = Watermark(image: mark)
      _ = try watermark.configure(input: size)
      var frame = patternFrame(size)
      let ready = watermark
      return { ready.process(&frame) }
    }
  }

  /// A frame of varied colours and alphas (so no kernel sees a trivial input).
  static func patternFrame(_ size: FrameGeometry) -> PixelBuffer {
    let frame = PixelBuffer(width: size.width, height: size.height)
    frame.withUnsafeMutableBytes { base in
      var state: UInt32 = 0x1234_5678
      for y in 0..<size.height {
        let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
        for x in 0..<size.width {
          state = state &* 1_664_525 &+ 1_013_904_223  // an LCG: cheap and deterministic
          row[x] = state
        }
      }
    }
    return frame
  }
}

/// Somewhere for a benchmark body to put a result so the optimiser cannot drop the
/// work. Only ever touched by the one thread running the benchmark.
final class BenchSink {
  var value = 0
}
