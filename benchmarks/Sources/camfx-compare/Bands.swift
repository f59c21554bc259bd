import BenchSupport
import Camfx
import Dispatch

/// Splitting a frame into two row bands processed on two threads, against one thread,
/// for the kernels that cost the most per frame.
func runBands(_ options: Options) throws {
  print("two row bands on two threads vs one thread (frames/s, best of \(options.rounds) rounds)")
  for geometry in options.sizes {
    for (name, job) in bandJobs(geometry) {
      let one = try job(1), two = try job(2)
      var t1 = Double.infinity, t2 = Double.infinity
      for _ in 0..<options.rounds {
        t1 = min(t1, try Stopwatch.nanosecondsPerCall(budgetNanoseconds: UInt64(options.budgetMilliseconds) * 1_000_000, one))
        t2 = min(t2, try Stopwatch.nanosecondsPerCall(budgetNanoseconds: UInt64(options.budgetMilliseconds) * 1_000_000, two))
      }
      print("\(name) \(geometry): 1 thread \(Int((1e9 / t1).rounded())) fps, 2 bands \(Int((1e9 / t2).rounded())) fps, scaling \(((t1 / t2) * 100).rounded() / 100)×")
    }
  }
}

/// Each kernel as a function of the band count: `bands` views of the frame's rows, run
/// with `DispatchQueue.concurrentPerform`.
func bandJobs(_ g: FrameGeometry) -> [(String, (Int) throws -> FrameJob)] {
  var jobs: [(String, (Int) throws -> FrameJob)] = []
  for spec in ["grayscale", "mirror"] where FilterRegistry.builtin.descriptor(named: spec) != nil {
    jobs.append(("camfx \(spec)", { bands in
      let frame = TestImages.frame(g)
      let views = rowBands(frame, bands)
      var chain = try FilterRegistry.builtin.makeChain([spec])
      try chain.configure(input: views[0].geometry)
      let configured = chain
      return {
        DispatchQueue.concurrentPerform(iterations: bands) { i in
          var view = views[i]
          configured.process(&view)
        }
      }
    }))
  }
  jobs.append(("libyuv ARGBGray", { bands in
    let frame = TestImages.frame(g)
    let views = rowBands(frame, bands)
    return {
      DispatchQueue.concurrentPerform(iterations: bands) { i in try? LibYUV.gray(views[i]) }
    }
  }))
  return jobs + BandHooks.jobs(g)
}

/// `frame` cut into `count` horizontal bands of (nearly) equal height, as views.
func rowBands(_ frame: PixelBuffer, _ count: Int) -> [PixelBuffer] {
  (0..<count).map { i in
    let y0 = frame.height * i / count, y1 = frame.height * (i + 1) / count
    var view = frame
    view.crop(x: 0, y: y0, width: frame.width, height: y1 - y0)
    return view
  }
}
