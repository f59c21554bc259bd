import CFFmpeg
import Camfx
import CamfxMedia
import Foundation
import XCTest

/// Repair on recordings cut inside every fragment (a crash while writing it): the
/// repaired file must be a regular MP4 holding every frame of every fragment before
/// the cut, and nothing is reported lost. (Damaged headers: `RepairOracleTests`.)
extension MovieFileOutputTests {
  /// A recording as a crash leaves it: fragmented, fragments of 0.5 s, B-frames and sound.
  func crashedRecording(in dir: TemporaryDirectory) throws -> [UInt8] {
    let path = dir.file("rec.mp4")
    let snapshot = dir.file("crashed.mp4")
    try record(path, count: 170, fragment: 0.5, bframes: 2, midwayFrame: 160) { path in
      try FileManager.default.copyItem(atPath: path, toPath: snapshot)
    }
    return Array(try XCTUnwrap(FileManager.default.contents(atPath: snapshot)))
  }

  func testRepairKeepsEveryFragmentBeforeACut() throws {
    FFmpegLogging.fatalOnly()
    let dir = try TemporaryDirectory()
    let original = try crashedRecording(in: dir)
    let parts = fragmentBoxes(original)
    XCTAssertGreaterThanOrEqual(parts.count, 8)
    XCTAssertEqual(parts.last?.end, original.count, "the snapshot ends on a whole fragment")
    let originalPath = dir.file("original.mp4")
    FileManager.default.createFile(atPath: originalPath, contents: Data(original))
    let originalPackets = try packets(originalPath)
    // Each packet's fragment, by its position in the file.
    let packetFragment = originalPackets.map { p in parts.firstIndex { p.position >= Int64($0.moof) && p.position < Int64($0.end) } }
    XCTAssertFalse(packetFragment.contains(nil))

    /// Repairs `bytes` and checks that the packets of every fragment but `damaged` are all there.
    func check(_ bytes: [UInt8], intact: Range<Int>, except damaged: Int?, _ what: String) throws -> FragmentedMovieFinisher.Report {
      let path = dir.file("case.mp4")
      FileManager.default.createFile(atPath: path, contents: Data(bytes))
      let report = try FragmentedMovieFinisher.finish(path: path)
      XCTAssertEqual(try topLevelBoxes(path), ["ftyp", "free", "mdat", "moov"], what)
      var kept: [PacketKey: Int] = [:]
      for p in try packets(path) { kept[p.key, default: 0] += 1 }
      var wanted: [PacketKey: Int] = [:]
      for (p, fragment) in zip(originalPackets, packetFragment) where intact.contains(fragment!) && fragment != damaged {
        wanted[p.key, default: 0] += 1
      }
      let missing = wanted.filter { kept[$0.key, default: 0] < $0.value }
      XCTAssertTrue(missing.isEmpty, "\(what): \(missing.count) packets of intact fragments missing")
      return report
    }

    // Cut inside every fragment (a crash while writing it): everything before it is
    // kept, and nothing is reported lost.
    for (k, part) in parts.enumerated() {
      for cut in [part.moof + 3, part.moofEnd + 4, (part.moofEnd + part.end) / 2, part.end - 1] {
        let bytes = Array(original.prefix(cut))
        if k == 0 {
          let path = dir.file("cut.mp4")
          FileManager.default.createFile(atPath: path, contents: Data(bytes))
          XCTAssertThrowsError(try FragmentedMovieFinisher.finish(path: path), "cut at \(cut)")
          XCTAssertEqual(FileManager.default.contents(atPath: path), Data(bytes), "a file with nothing to keep is left unchanged")
          continue
        }
        let report = try check(bytes, intact: 0..<k, except: nil, "cut at \(cut) in fragment \(k)")
        XCTAssertTrue(report.keptEverythingIntact, "cut at \(cut)")
        XCTAssertEqual(report.fragments, k, "cut at \(cut)")
        XCTAssertEqual(report.cutBytes, 0, "cut at \(cut): nothing is cut from the file")
      }
    }
  }
}

/// A packet by what identifies it across a repair: its stream and a hash of its data.
struct PacketKey: Hashable {
  var stream: Int
  var hash: UInt64
}

/// Every packet libavformat reads from `path`, with its position in the file.
func packets(_ path: String) throws -> [(key: PacketKey, position: Int64)] {
  var context: UnsafeMutablePointer<AVFormatContext>? = nil
  guard avformat_open_input(&context, path, nil, nil) == 0, let context else {
    throw NSError(domain: "packets", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(path)"])
  }
  defer {
    var c: UnsafeMutablePointer<AVFormatContext>? = context
    avformat_close_input(&c)
  }
  var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
  defer { av_packet_free(&packet) }
  var result: [(PacketKey, Int64)] = []
  while av_read_frame(context, packet) >= 0 {
    let p = packet!.pointee
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for i in 0..<Int(p.size) { hash = (hash ^ UInt64(p.data[i])) &* 0x100_0000_01b3 }
    result.append((PacketKey(stream: Int(p.stream_index), hash: hash), p.pos))
    av_packet_unref(packet)
  }
  return result
}
