/// What a track's samples say of themselves, read from their bytes: an H.264 or HEVC
/// sample is a chain of NAL units, each behind a big-endian length, that ends exactly
/// where the sample does, and its NAL types tell whether it is a keyframe. A fragment's
/// index can be checked against that, and where its sizes were damaged the samples can
/// be found again by walking the chain (as untrunc rebuilds an index from the media).
/// Sound (AAC, Opus) carries no length framing in MP4: its sizes are checked by how
/// they tile their `mdat`, and by each frame's first byte (`FragmentReader`).
struct SampleFraming: Sendable, Equatable {
  enum Codec: Sendable, Equatable {
    case h264
    case hevc
    /// No framing to check.
    case opaque
  }

  var codec: Codec
  /// Bytes in each NAL unit's length prefix (`avcC`/`hvcC` lengthSizeMinusOne + 1).
  var lengthSize: Int

  static let opaque = SampleFraming(codec: .opaque, lengthSize: 4)

  var checksMedia: Bool { codec != .opaque }

  /// One NAL unit's place and what its first bytes say.
  struct Unit {
    var offset: Int64
    var size: Int64
    var type: UInt8
    /// A picture's slice (VCL) NAL unit.
    var isSlice: Bool
    /// A keyframe's slice: IDR (H.264), IRAP (HEVC).
    var isKeyframeSlice: Bool
    /// The slice is the first of its picture (`first_mb_in_slice` or
    /// `first_slice_segment_in_pic_flag`).
    var startsPicture: Bool
    /// An H.264 slice that predicts from other pictures (`slice_type` P or B); nil where
    /// that is not read (HEVC, whose slice header needs its parameter sets).
    var isInterSlice: Bool? = nil
  }

  /// What a sample's pictures say it is.
  enum Picture {
    /// An IDR (H.264) or IRAP (HEVC) picture: decodable alone, from which to seek.
    case keyframe
    /// Predicted from others.
    case predicted
    /// Neither can be told (an intra picture that is no IDR, or an HEVC picture that
    /// is no IRAP): its flag stays as written.
    case undecided
  }

  /// The NAL unit at `offset`, or nil when its length or header cannot be.
  func unit(at offset: Int64, before end: Int64, in file: MP4FileReader) -> Unit? {
    guard end - offset >= Int64(lengthSize + 2), let bytes = try? file.read(at: offset, count: lengthSize + 10),
      bytes.count >= lengthSize + 2
    else { return nil }
    var length: Int64 = 0
    for i in 0..<lengthSize { length = length << 8 | Int64(bytes[i]) }
    let header = bytes[lengthSize]
    guard length >= (codec == .hevc ? 2 : 1), length <= end - offset - Int64(lengthSize), header & 0x80 == 0 else {
      return nil
    }
    let next: UInt8 = bytes.count > lengthSize + 2 ? bytes[lengthSize + 2] : 0
    switch codec {
    case .h264:
      let type = header & 0x1F
      guard type != 0, type < 24 else { return nil }
      let slice = type == 1 || type == 5
      // first_mb_in_slice is ue(v): 0 is the single bit 1.
      let first = length >= 2 && bytes[lengthSize + 1] & 0x80 != 0
      var unit = Unit(
        offset: offset, size: Int64(lengthSize) + length, type: type, isSlice: slice, isKeyframeSlice: type == 5,
        startsPicture: slice && first)
      if slice, let sliceType = Self.h264SliceType(Array(bytes[(lengthSize + 1)..<min(bytes.count, lengthSize + 1 + Int(length) - 1)])) {
        // slice_type 0 and 5 are P, 1 and 6 B (2, 7 I; 3, 8 SP; 4, 9 SI).
        unit.isInterSlice = [0, 1, 5, 6].contains(sliceType)
      }
      return unit
    case .hevc:
      let type = (header >> 1) & 0x3F
      // nuh_temporal_id_plus1 is never 0.
      guard bytes[lengthSize + 1] & 0x07 != 0, type < 48 else { return nil }
      let slice = type < 32
      let first = length >= 3 && next & 0x80 != 0
      return Unit(
        offset: offset, size: Int64(lengthSize) + length, type: type, isSlice: slice,
        isKeyframeSlice: (16...23).contains(type), startsPicture: slice && first)
    case .opaque:
      return nil
    }
  }

  /// What the sample at `range` is, when it is a whole chain of NAL units; nil for
  /// sound, or when the chain does not end with the sample (its media was damaged, or
  /// its size is wrong).
  func picture(sampleAt range: Range<Int64>, in file: MP4FileReader) -> Picture? {
    guard checksMedia else { return nil }
    var position = range.lowerBound
    var keyframe = false
    var predicted = false
    var slices = 0
    while position < range.upperBound {
      guard let unit = unit(at: position, before: range.upperBound, in: file) else { return nil }
      if unit.isSlice {
        slices += 1
        keyframe = keyframe || unit.isKeyframeSlice
        predicted = predicted || unit.isInterSlice == true
      }
      position += unit.size
    }
    guard slices > 0 else { return nil }
    return keyframe ? .keyframe : predicted ? .predicted : .undecided
  }

  /// An H.264 slice header's `slice_type`, read after `first_mb_in_slice` (both
  /// Exp-Golomb codes); nil where the bytes run out or hold an emulation-prevention
  /// byte (then the bits are not the header's as they stand).
  static func h264SliceType(_ bytes: [UInt8]) -> UInt32? {
    for i in 0..<max(0, bytes.count - 2) where bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 3 { return nil }
    var bit = 0
    func readBit() -> UInt32? {
      guard bit / 8 < bytes.count else { return nil }
      defer { bit += 1 }
      return UInt32(bytes[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
    }
    func exponentialGolomb() -> UInt32? {
      var zeros = 0
      while true {
        guard let b = readBit() else { return nil }
        if b == 1 { break }
        zeros += 1
        if zeros > 31 { return nil }
      }
      var value: UInt32 = 0
      for _ in 0..<zeros {
        guard let b = readBit() else { return nil }
        value = value << 1 | b
      }
      return (UInt32(1) << UInt32(zeros)) - 1 + value
    }
    guard exponentialGolomb() != nil else { return nil }
    return exponentialGolomb()
  }

  /// The sizes of the pictures that tile `region` exactly, each starting where a new
  /// picture's first slice (or the parameter sets and SEI before it) does; nil when
  /// the region is not a chain of NAL units.
  func pictureSizes(in region: Range<Int64>, in file: MP4FileReader) -> [UInt32]? {
    guard checksMedia else { return nil }
    var sizes: [UInt32] = []
    var pictureStart = region.lowerBound
    var position = region.lowerBound
    var sawSlice = false
    while position < region.upperBound {
      guard let unit = unit(at: position, before: region.upperBound, in: file) else { return nil }
      // A picture ends before the next picture's first slice, or before the non-slice
      // units (SEI, parameter sets, delimiters) that come ahead of it.
      if sawSlice && (unit.startsPicture || !unit.isSlice) {
        sizes.append(UInt32(position - pictureStart))
        pictureStart = position
        sawSlice = false
      }
      sawSlice = sawSlice || unit.isSlice
      position += unit.size
    }
    guard sawSlice else { return nil }
    sizes.append(UInt32(position - pictureStart))
    return sizes
  }
}
