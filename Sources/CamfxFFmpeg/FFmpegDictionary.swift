import CFFmpeg

/// Owns an `AVDictionary` of options (`av_dict_free`).
package final class FFmpegDictionary {
  package var pointer: OpaquePointer? = nil

  package init() {}

  package func set(_ key: String, _ value: String) throws(FFmpegError) {
    try check(av_dict_set(&pointer, key, value, 0), "setting option '\(key)'")
  }

  package var count: Int { Int(av_dict_count(pointer)) }

  deinit { av_dict_free(&pointer) }
}
