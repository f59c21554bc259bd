import CFFmpeg

/// Owns one `AVFrame` (`av_frame_alloc` / `av_frame_free`).
package final class FFmpegFrame {
  package let pointer: UnsafeMutablePointer<AVFrame>

  package init() throws(FFmpegError) {
    guard let f = av_frame_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "allocating a frame")
    }
    pointer = f
  }

  /// A frame with its own, 64-byte aligned picture buffers (`av_frame_get_buffer`).
  package convenience init(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegError) {
    try self.init()
    pointer.pointee.width = Int32(width)
    pointer.pointee.height = Int32(height)
    pointer.pointee.format = format.rawValue
    try check(av_frame_get_buffer(pointer, 64), "allocating a \(width)x\(height) picture")
  }

  deinit {
    var p: UnsafeMutablePointer<AVFrame>? = pointer
    av_frame_free(&p)
  }
}

