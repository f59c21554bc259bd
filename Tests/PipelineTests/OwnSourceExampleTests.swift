import Camfx
import Foundation
import XCTest

/// The README's source of one's own ("Recording from your own program"), with nothing
/// but `import Camfx`: it compiles as shown and records what it makes.
final class OwnSourceExampleTests: XCTestCase {
  final class Gradient: MediaSource {
    let geometry = FrameGeometry(width: 640, height: 360)
    let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 30)
    let isLive = false
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 640, height: 360), capacity: 4)
    var n: Int64 = 0
    func nextSample() throws -> MediaSample<PCMBuffer>? {
      guard n < 300, let frame = pool.acquire(presentationTime: MediaTime(value: n, timescale: 30)) else { return nil }
      frame.fill(BGRA(r: UInt8(n % 256), g: 80, b: 160))
      n += 1
      return .video(.bgra(frame))
    }
  }

  func testTheReadmeSourceRecordsEveryFrame() throws {
    let source = Gradient()
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-gradient-\(UUID().uuidString).mp4").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var video = VideoSettings(geometry: source.geometry)
    video.fps = 30
    video.preset = "ultrafast"
    var chain = try FilterRegistry.builtin.makeChain(["mirror"])
    try chain.configure(input: source.geometry)
    let session = try RecordingSession<PCMBuffer>(
      input: source, chain: chain, sink: MovieWriterSink(writer: try MovieWriter(path: output, settings: MovieSettings(video: video))))
    session.start()
    let summary = session.waitUntilFinished()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 300)
    let probed = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames,width", output])
    XCTAssertEqual(probed["nb_read_frames"], "300")
    XCTAssertEqual(probed["width"], "640")
  }
}
