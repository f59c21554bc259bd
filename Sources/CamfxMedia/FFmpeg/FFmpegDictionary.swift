import CFFmpeg
import CamfxFrames

/// Owns an `AVDictionary` of options (`av_dict_free`).
final class FFmpegDictionary {
  var pointer: OpaquePointer? = nil

  func set(_ key: String, _ value: String) throws(FFmpegError) {
    try check(av_dict_set(&pointer, key, value, 0), "setting option '\(key)'")
  }

  var count: Int { Int(av_dict_count(pointer)) }

  deinit { av_dict_free(&pointer) }
}
