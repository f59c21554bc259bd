/// What camfx reads of an H.264 elementary stream in Annex B form (NAL units after
/// `00 00 01` or `00 00 00 01` start codes), as cameras send it: which frames are
/// keyframes, and the parameter sets (SPS, PPS) that a container's header needs.
public enum H264Bitstream {
  /// NAL unit types (ITU-T H.264 table 7-1).
  static let idrSlice: UInt8 = 5
  static let sequenceParameterSet: UInt8 = 7
  static let pictureParameterSet: UInt8 = 8

  /// Calls `body` with each NAL unit's bytes (header byte first, without its start
  /// code) in order. Bytes before the first start code are not a NAL unit and are skipped.
  static func forEachNALUnit(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
    let n = bytes.count
    var i = 0
    var start: Int?
    while i + 2 < n {
      if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
        if let s = start {
          // A zero before the start code belongs to the 4-byte form, not the unit.
          var end = i
          while end > s, bytes[end - 1] == 0 { end -= 1 }
          body(UnsafeRawBufferPointer(rebasing: bytes[s..<end]))
        }
        i += 3
        start = i
      } else {
        i += 1
      }
    }
    if let s = start, s < n { body(UnsafeRawBufferPointer(rebasing: bytes[s..<n])) }
  }

  /// The NAL unit types in `bytes`, in order.
  static func nalUnitTypes(in bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var types: [UInt8] = []
    forEachNALUnit(in: bytes) { unit in if let h = unit.first { types.append(h & 0x1F) } }
    return types
  }

  /// True when the frame's first slice is an IDR slice: decoding can start here.
  /// Reads only up to that slice's header (a frame is mostly slice data).
  public static func isKeyframe(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let n = bytes.count
    var i = 0
    while i + 3 < n {
      if bytes[i + 2] > 1 {
        i += 3  // no start code can end before i + 3
      } else if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
        let type = bytes[i + 3] & 0x1F
        if type == idrSlice { return true }
        if (1...4).contains(type) { return false }  // another slice: not a keyframe
        i += 4
      } else {
        i += 1
      }
    }
    return false
  }

  /// True when the bytes hold both an SPS and a PPS.
  public static func hasParameterSets(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let types = nalUnitTypes(in: bytes)
    return types.contains(sequenceParameterSet) && types.contains(pictureParameterSet)
  }

  /// The SPS and PPS units of `bytes`, each after a 4-byte start code: a container's
  /// codec header (libavformat turns it into an `avcC` box for MP4 and FLV), or empty
  /// when the bytes lack either.
  public static func parameterSets(in bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var out: [UInt8] = []
    var kinds = Set<UInt8>()
    forEachNALUnit(in: bytes) { unit in
      guard let h = unit.first, h & 0x1F == sequenceParameterSet || h & 0x1F == pictureParameterSet else { return }
      kinds.insert(h & 0x1F)
      out += [0, 0, 0, 1]
      out += unit
    }
    return kinds.count == 2 ? out : []
  }

  /// True when the bytes begin with a start code: an Annex B frame at all.
  public static func startsWithStartCode(_ bytes: UnsafeRawBufferPointer) -> Bool {
    (bytes.count >= 3 && bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 1)
      || (bytes.count >= 4 && bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 1)
  }
}
