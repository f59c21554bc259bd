import CFFmpeg

/// Owns one `AVPacket` (`av_packet_alloc` / `av_packet_free`).
package final class FFmpegPacket {
  package let pointer: UnsafeMutablePointer<AVPacket>

  package init() throws(FFmpegError) {
    guard let p = av_packet_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "allocating a packet")
    }
    pointer = p
  }

  deinit {
    var p: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&p)
  }
}
