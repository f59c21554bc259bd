import CFFmpeg
import CamfxCore

extension MediaTime {
  /// `ticks` of an FFmpeg time base (`num/den` seconds each), exactly.
  package init(ticks: Int64, in base: AVRational) {
    self.init(value: ticks * Int64(base.num), timescale: base.den)
  }

  /// This time in ticks of an FFmpeg time base, rounded down (a seek target lands on or
  /// before the time).
  package func ticks(in base: AVRational) -> Int64 {
    let numerator = Int128(value) * Int128(base.den), denominator = Int128(timescale) * Int128(base.num)
    let quotient = numerator / denominator
    return Int64(numerator % denominator < 0 ? quotient - 1 : quotient)
  }
}
