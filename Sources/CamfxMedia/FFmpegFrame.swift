import CFFmpeg

/// Owns one `AVFrame` (`av_frame_alloc` / `av_frame_free`).
final class FFmpegFrame {
  let pointer: UnsafeMutablePointer<AVFrame>

  init() throws(FFmpegError) {
    guard let f = av_frame_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "av_frame_alloc")
    }
    pointer = f
  }

  /// A frame with its own, 64-byte aligned picture buffers (`av_frame_get_buffer`).
  convenience init(width: Int, height: Int, format: AVPixelFormat) throws(FFmpegError) {
    try self.init()
    pointer.pointee.width = Int32(width)
    pointer.pointee.height = Int32(height)
    pointer.pointee.format = format.rawValue
    try check(av_frame_get_buffer(pointer, 64), "av_frame_get_buffer \(width)x\(height)")
  }

  deinit {
    var p: UnsafeMutablePointer<AVFrame>? = pointer
    av_frame_free(&p)
  }
}

/// Owns one `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class FFmpegPacket {
  let pointer: UnsafeMutablePointer<AVPacket>

  init() throws(FFmpegError) {
    guard let p = av_packet_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "av_packet_alloc")
    }
    pointer = p
  }

  deinit {
    var p: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&p)
  }
}

/// Owns one `AVCodecContext` (`avcodec_alloc_context3` / `avcodec_free_context`).
final class FFmpegCodecContext {
  let pointer: UnsafeMutablePointer<AVCodecContext>
  let codec: UnsafePointer<AVCodec>

  init(codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
    guard let c = avcodec_alloc_context3(codec) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avcodec_alloc_context3")
    }
    self.codec = codec
    pointer = c
  }

  deinit {
    var p: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&p)
  }
}

/// Owns an `AVDictionary` of options (`av_dict_free`).
final class FFmpegDictionary {
  var pointer: OpaquePointer? = nil

  func set(_ key: String, _ value: String) throws(FFmpegError) {
    try check(av_dict_set(&pointer, key, value, 0), "av_dict_set \(key)")
  }

  var count: Int { Int(av_dict_count(pointer)) }

  deinit { av_dict_free(&pointer) }
}
