#if canImport(Glibc)
import Glibc
#endif

/// The name `camfx record` writes to without `-o`: `camfx-YYYYmmdd-HHMMSS.mp4` in the
/// current directory, in local time, as OBS and QuickTime name recordings.
enum DefaultOutputName {
  static func make(at time: time_t = Glibc.time(nil)) -> String {
    var t = time
    var parts = tm()
    localtime_r(&t, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let n = strftime(&buffer, buffer.count, "camfx-%Y%m%d-%H%M%S.mp4", &parts)
    return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
