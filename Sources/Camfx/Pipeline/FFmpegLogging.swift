import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// FFmpeg's own log (libx264's banner and statistics, demuxer complaints about a
/// damaged file) on stderr would bury camfx's status line and its one-line errors;
/// every failing FFmpeg call already comes back as an `FFmpegError` that camfx reports.
public enum FFmpegLogging {
  /// Lets through only FFmpeg messages about fatal errors (`av_log_set_level`).
  public static func fatalOnly() {
    av_log_set_level(AV_LOG_FATAL)
  }

  /// What a command sets first: fatal errors only, or with `verbose` (`camfx record -v`)
  /// also the errors FFmpeg and the encoders report themselves, which say why an
  /// encoder refused to open. (Not warnings: the MP4 muxer warns about edit lists and
  /// timestamps that camfx handles itself.) libx265 and SVT-AV1 write to stderr
  /// themselves: libx265 gets av_log's level when it opens (`VideoEncoder`), SVT-AV1
  /// reads `SVT_LOG`, set here before other threads read the environment (a value the
  /// user set is kept).
  public static func configure(verbose: Bool) {
    av_log_set_level(verbose ? AV_LOG_ERROR : AV_LOG_FATAL)
    setenv("SVT_LOG", verbose ? "1" : "0", 0)
  }
}
