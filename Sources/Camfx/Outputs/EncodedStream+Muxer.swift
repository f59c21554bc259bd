import CFFmpeg
import CamfxFFmpeg
import CamfxMedia

extension EncodedStream {
  /// Adds `streams` to a muxer, in order, as the encoders made them: codec parameters,
  /// time base, and a video stream's frame rate. What every output that muxes does.
  /// - Throws: `FFmpegError` naming `operation` when libavformat cannot add one.
  static func add(_ streams: [EncodedStream], to context: UnsafeMutablePointer<AVFormatContext>, operation: String) throws(FFmpegError) {
    for stream in streams {
      guard let added = avformat_new_stream(context, nil) else {
        throw FFmpegError(code: camfx_averror(ENOMEM), operation: operation)
      }
      _ = try check(avcodec_parameters_copy(added.pointee.codecpar, stream.parameters), operation)
      added.pointee.time_base = stream.timeBase
      if stream.kind == .video { added.pointee.avg_frame_rate = stream.frameRate }
    }
  }
}
