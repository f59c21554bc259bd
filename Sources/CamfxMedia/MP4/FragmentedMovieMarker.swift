/// The box camfx writes right after `ftyp` in a fragmented MP4, a `free` box that
/// players skip:
///
///     ftyp | free "camfx-fmp4-1" (96 bytes) | moov (no samples, mvex) | moof mdat | moof mdat | ...
///
/// It records, per track, the decode time of the first packet in the stream's time
/// base (an encoder's delay: AAC's priming samples, B-frame reordering), which the
/// fragments lose and the final index needs for its edit lists. It is also the
/// placeholder that `FragmentedMovieFinisher` turns into the header of the `mdat`
/// covering every fragment: its last 16 bytes become `size=1 "mdat" largesize`, and the
/// `free` box shrinks to 80 bytes.
package struct FragmentedMovieMarker: Equatable {
  package static let size = 96
  static let finishedFreeSize = size - 16
  static let maximumTracks = 4
  static let magic = Array("camfx-fmp4-1".utf8)

  /// The decode time of each track's first packet, in its stream time base.
  package var firstDecodeTimes: [UInt32: Int64] = [:]

  package init() {}

  /// The whole 96-byte box.
  package func encoded() -> [UInt8] {
    var w = MP4ByteWriter()
    w.box("free") { w in
      w.append(Self.magic)
      let tracks = firstDecodeTimes.sorted { $0.key < $1.key }.prefix(Self.maximumTracks)
      w.u32(UInt32(tracks.count))
      for (track, time) in tracks {
        w.u32(track)
        w.i64(time)
      }
    }
    w.append([UInt8](repeating: 0, count: Self.size - w.bytes.count))
    MP4ByteWriter.patchSize(&w.bytes, at: 0, size: Self.size)
    return w.bytes
  }

  /// Reads the marker from a `free` box's bytes (the whole box, header included).
  /// - Returns: nil when the box is not camfx's marker.
  static func parse(_ box: [UInt8]) -> FragmentedMovieMarker? {
    guard box.count >= 8 + magic.count + 4, Array(box[8..<(8 + magic.count)]) == magic else { return nil }
    var r = MP4ByteReader(box, at: 8 + magic.count)
    guard let count = try? r.u32(), count <= maximumTracks else { return nil }
    var marker = FragmentedMovieMarker()
    for _ in 0..<count {
      guard let track = try? r.u32(), let time = try? r.u64() else { return nil }
      marker.firstDecodeTimes[track] = Int64(bitPattern: time)
    }
    return marker
  }

  /// The 80-byte `free` box and the 16-byte `mdat` header that replace the marker once
  /// the file is finished; the `mdat` runs to `mediaEnd`.
  static func finishedBoxes(original: [UInt8], markerOffset: Int64, mediaEnd: Int64) -> [UInt8] {
    var bytes = Array(original.prefix(finishedFreeSize))
    MP4ByteWriter.patchSize(&bytes, at: 0, size: finishedFreeSize)
    var w = MP4ByteWriter()
    w.u32(1)
    w.type("mdat")
    w.u64(UInt64(mediaEnd - (markerOffset + Int64(finishedFreeSize))))
    bytes.append(contentsOf: w.bytes)
    return bytes
  }
}
