import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Owns one output `AVFormatContext` and its file (`avformat_alloc_output_context2`,
/// `avio_open`, `avformat_write_header`, `av_interleaved_write_frame`,
/// `av_write_trailer`, `avio_closep`, `avformat_free_context`).
final class Muxer {
  let context: UnsafeMutablePointer<AVFormatContext>
  let path: String
  let container: MovieContainer
  private(set) var fileOpen = false
  private(set) var fileCreated = false

  init(path: String, container: MovieContainer) throws(FFmpegError) {
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(
      avformat_alloc_output_context2(&ctx, nil, container.muxerName, path),
      "avformat_alloc_output_context2 '\(path)'")
    guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avformat_alloc_output_context2") }
    self.context = ctx
    self.path = path
    self.container = container
  }

  /// True when encoders must put their headers in extradata (MP4, MOV, MKV all do).
  var wantsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

  /// Adds a stream described by an opened encoder.
  func addStream(for encoder: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError) -> UnsafeMutablePointer<AVStream> {
    guard let stream = avformat_new_stream(context, nil) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avformat_new_stream")
    }
    try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder), "avcodec_parameters_from_context")
    stream.pointee.time_base = encoder.pointee.time_base
    return stream
  }

  /// Creates the file and writes the container header.
  func open(faststart: Bool) throws(FFmpegError) {
    try check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open '\(path)'")
    fileOpen = true
    fileCreated = true
    let options = FFmpegDictionary()
    if faststart && container.isISOBMFF { try options.set("movflags", "+faststart") }
    try check(avformat_write_header(context, &options.pointer), "avformat_write_header '\(path)'")
    // The muxer removes the options it used; one left over was not understood.
    if options.count > 0 {
      throw FFmpegError.invalid("avformat_write_header '\(path)'", "the \(container.muxerName) muxer ignored movflags")
    }
  }

  /// Writes one packet (timestamps already in its stream's time base); takes its data.
  func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
    try check(av_interleaved_write_frame(context, packet), "av_interleaved_write_frame '\(path)'")
  }

  /// Flushes interleaving queues, writes the index and closes the file.
  func finish() throws(FFmpegError) {
    try check(av_write_trailer(context), "av_write_trailer '\(path)'")
    try closeFile()
  }

  func closeFile() throws(FFmpegError) {
    guard fileOpen else { return }
    fileOpen = false
    try check(avio_closep(&context.pointee.pb), "avio_closep '\(path)'")
  }

  /// Closes (if open) and deletes what was written. Errors are ignored on purpose:
  /// this runs while failing or cancelling, and the file goes away either way.
  func discardFile() {
    if fileOpen {
      fileOpen = false
      avio_closep(&context.pointee.pb)
    }
    if fileCreated {
      fileCreated = false
      unlink(path)
    }
  }

  deinit {
    if fileOpen { avio_closep(&context.pointee.pb) }
    avformat_free_context(context)
  }
}
