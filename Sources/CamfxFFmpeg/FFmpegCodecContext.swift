import CFFmpeg

/// Owns one `AVCodecContext` (`avcodec_alloc_context3` / `avcodec_free_context`).
package final class FFmpegCodecContext {
  package let pointer: UnsafeMutablePointer<AVCodecContext>
  package let codec: UnsafePointer<AVCodec>

  package init(codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
    guard let c = avcodec_alloc_context3(codec) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "allocating a codec context")
    }
    self.codec = codec
    pointer = c
  }

  deinit {
    var p: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&p)
  }
}
