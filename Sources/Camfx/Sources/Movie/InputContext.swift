import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia

/// Owns an opened input `AVFormatContext` (`avformat_open_input` / `avformat_close_input`).
final class InputContext {
  let context: UnsafeMutablePointer<AVFormatContext>

  init(path: String) throws(FFmpegError) {
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_open_input(&ctx, path, nil, nil), cannot: "open '\(path)'")
    guard let ctx else { throw FFmpegError.cannot("open '\(path)'", code: camfx_averror(ENOMEM)) }
    context = ctx
    // Every stored property is set, so a throw from here on runs deinit, which closes
    // the context (closing it here as well freed it twice: found by fuzz/FuzzMovie).
    try check(avformat_find_stream_info(ctx, nil), cannot: "read '\(path)'")
  }

  deinit {
    var c: UnsafeMutablePointer<AVFormatContext>? = context
    avformat_close_input(&c)
  }
}
