/// The `prft` box (ISO/IEC 14496-12 ProducerReferenceTimeBox) camfx puts before each
/// fragment of the live view: the wall-clock instant a frame was captured, beside that
/// frame's time on its track, so that a page can tell how far behind the camera it
/// plays. (FFmpeg 5.1's `-write_prft wallclock` stamps the muxing instant instead.)
///
///     size(4) "prft" version(1)=1 flags(3) reference_track_ID(4) ntp_timestamp(8) media_time(8)
///
/// `ntp_timestamp` is seconds since 1900-01-01 in its high 32 bits and the fraction of
/// a second in its low 32.
package struct ProducerReferenceTime: Equatable, Sendable {
  /// `flags` 24: the time is when the frame was captured (the standard's value).
  static let capturedFlags: UInt32 = 24
  /// Seconds from 1900-01-01 (NTP's epoch) to 1970-01-01 (Unix's).
  static let ntpEpochOffset: UInt64 = 2_208_988_800

  package var track: UInt32
  /// When the frame was captured, nanoseconds since 1970-01-01 (UTC).
  package var capturedNanoseconds: Int64
  /// The frame's time on its track, in the track's timescale.
  package var mediaTime: UInt64

  package init(track: UInt32, capturedNanoseconds: Int64, mediaTime: UInt64) {
    self.track = track
    self.capturedNanoseconds = capturedNanoseconds
    self.mediaTime = mediaTime
  }

  /// The NTP timestamp of `capturedNanoseconds`.
  var ntpTimestamp: UInt64 {
    let seconds = UInt64(capturedNanoseconds / 1_000_000_000) + Self.ntpEpochOffset
    let nanoseconds = UInt64(capturedNanoseconds % 1_000_000_000)
    return seconds << 32 | (nanoseconds << 32) / 1_000_000_000
  }

  /// The whole 32-byte box.
  package func encoded() -> [UInt8] {
    var w = MP4ByteWriter()
    w.fullBox("prft", version: 1, flags: Self.capturedFlags) { w in
      w.u32(track)
      w.u64(ntpTimestamp)
      w.u64(mediaTime)
    }
    return w.bytes
  }

  /// Reads a box `encoded()` made (version 0's 32-bit media time too).
  /// - Throws: `MP4FormatError` for another box or a short one.
  package init(decoding bytes: [UInt8]) throws(MP4FormatError) {
    var r = MP4ByteReader(bytes)
    _ = try r.u32()
    guard try r.u32() == FourCC("prft").rawValue else { throw MP4FormatError("not a prft box") }
    let (version, _) = try r.versionAndFlags()
    track = try r.u32()
    let ntp = try r.u64()
    mediaTime = version == 1 ? try r.u64() : UInt64(try r.u32())
    let seconds = Int64(ntp >> 32) - Int64(Self.ntpEpochOffset)
    let fraction = Int64(((ntp & 0xFFFF_FFFF) * 1_000_000_000 + (1 << 31)) >> 32)
    capturedNanoseconds = seconds * 1_000_000_000 + fraction
  }
}
