import CFFmpeg

/// FFmpeg's own log (libx264's banner and statistics, muxer notes) on stderr would
/// bury camfx's status line and summary; camfx reports errors itself.
public enum FFmpegLogging {
  /// Lets through only FFmpeg messages at error level and above (`av_log_set_level`).
  public static func errorsOnly() {
    av_log_set_level(AV_LOG_ERROR)
  }
}
