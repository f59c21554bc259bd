import CFFmpeg

/// Owns an opened input `AVFormatContext` (`avformat_open_input` / `avformat_close_input`).
final class InputContext {
  let context: UnsafeMutablePointer<AVFormatContext>

  init(path: String) throws(FFmpegError) {
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_open_input(&ctx, path, nil, nil), "avformat_open_input '\(path)'")
    guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avformat_open_input") }
    context = ctx
    // Every stored property is set, so a throw from here on runs deinit, which closes
    // the context (closing it here as well freed it twice: found by fuzz/FuzzMovie).
    try check(avformat_find_stream_info(ctx, nil), "avformat_find_stream_info '\(path)'")
  }

  deinit {
    var c: UnsafeMutablePointer<AVFormatContext>? = context
    avformat_close_input(&c)
  }
}
