import CFFmpeg

/// FFmpeg's own log (libx264's banner and statistics, demuxer complaints about a
/// damaged file) on stderr would bury camfx's status line and its one-line errors;
/// every failing FFmpeg call already comes back as an `FFmpegError` that camfx reports.
public enum FFmpegLogging {
  /// Lets through only FFmpeg messages about fatal errors (`av_log_set_level`).
  public static func fatalOnly() {
    av_log_set_level(AV_LOG_FATAL)
  }
}
