import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames

/// Owns the audio `AVCodecContext`, the resampler (`SwrContext`) from the appended PCM
/// to the encoder's format, and the FIFO (`AVAudioFifo`) that cuts the audio into the
/// encoder's fixed frames (1024 samples for AAC).
final class AudioEncoder {
  let context: FFmpegCodecContext
  let settings: AudioSettings
  let frameSize: Int
  private let sampleFormat: AVSampleFormat
  private let fifo: OpaquePointer
  private let frame: FFmpegFrame
  let packet: FFmpegPacket
  private var resampler: Resampler? = nil
  /// The input format the resampler was made for (rate, channels).
  private var inputFormat: (rate: Int, channels: Int)? = nil
  /// pts (in 1/sampleRate) of the next sample to come out of the FIFO; nil before the first buffer.
  private var nextPTS: Int64? = nil

  init(settings: AudioSettings, globalHeader: Bool) throws {
    try settings.validate()
    guard let codec = avcodec_find_encoder_by_name(settings.codec) else {
      throw MediaSettingsError("unknown audio codec '\(settings.codec)' (FFmpeg has no encoder by that name; try aac)")
    }
    guard codec.pointee.type == AVMEDIA_TYPE_AUDIO else {
      throw MediaSettingsError("'\(settings.codec)' is not an audio encoder")
    }
    self.settings = settings
    context = try FFmpegCodecContext(codec: codec)
    let c = context.pointer
    sampleFormat = codec.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
    c.pointee.sample_fmt = sampleFormat
    c.pointee.sample_rate = Int32(settings.sampleRate)
    av_channel_layout_default(&c.pointee.ch_layout, Int32(settings.channels))
    c.pointee.bit_rate = Int64(settings.bitrate)
    c.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
    if globalHeader { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
    try check(avcodec_open2(c, codec, nil), "opening audio encoder '\(settings.codec)'")
    frameSize = c.pointee.frame_size > 0 ? Int(c.pointee.frame_size) : 1024
    frame = try FFmpegFrame()
    frame.pointer.pointee.nb_samples = Int32(frameSize)
    frame.pointer.pointee.format = sampleFormat.rawValue
    frame.pointer.pointee.sample_rate = Int32(settings.sampleRate)
    try check(
      av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &c.pointee.ch_layout), "opening audio encoder '\(settings.codec)'")
    try check(av_frame_get_buffer(frame.pointer, 0), "opening audio encoder '\(settings.codec)'")
    packet = try FFmpegPacket()
    // The FIFO comes last: deinit (its only free) runs only once every stored property
    // is set, so a throw above with the FIFO already made leaked it.
    guard let f = av_audio_fifo_alloc(sampleFormat, Int32(settings.channels), Int32(frameSize * 4)) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "opening audio encoder '\(settings.codec)'")
    }
    fifo = f
  }

  deinit { av_audio_fifo_free(fifo) }

  /// Resamples `buffer` into the FIFO. `startTicks` (1/sampleRate, relative to the
  /// session start) is used for the very first buffer only; later buffers continue the
  /// sample count.
  func push(_ buffer: PCMBuffer, skipFrames: Int, startTicks: Int64) throws(FFmpegError) {
    if let f = inputFormat, f.rate != buffer.sampleRate || f.channels != buffer.channels {
      throw FFmpegError.invalid(
        "append audio",
        "buffer is \(buffer.channels) ch at \(buffer.sampleRate) Hz but earlier buffers were \(f.channels) ch at \(f.rate) Hz")
    }
    if resampler == nil {
      resampler = try Resampler(
        inputRate: buffer.sampleRate, inputChannels: buffer.channels, inputFormat: AV_SAMPLE_FMT_S16,
        outputRate: settings.sampleRate, outputChannels: settings.channels, outputFormat: sampleFormat)
      inputFormat = (buffer.sampleRate, buffer.channels)
    }
    if nextPTS == nil { nextPTS = startTicks }
    let frames = buffer.frameCount - skipFrames
    guard frames > 0 else { return }
    try buffer.samples.withUnsafeBufferPointer { (p) throws(FFmpegError) in
      let start = UnsafeRawPointer(p.baseAddress! + skipFrames * buffer.channels)
      try resampler!.convert(input: start, frames: frames, into: fifo)
    }
  }

  /// Pops full frames from the FIFO (and, when `flushing`, the remainder) and encodes them.
  func encodeAvailable(flushing: Bool, write: (UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Void) throws(FFmpegError) {
    if flushing, let resampler { try resampler.flush(into: fifo) }
    while true {
      let available = Int(av_audio_fifo_size(fifo))
      let n = flushing ? min(available, frameSize) : (available >= frameSize ? frameSize : 0)
      if n == 0 { break }
      let f = frame.pointer
      try check(av_frame_make_writable(f), "encoding sound with '\(settings.codec)'")
      f.pointee.nb_samples = Int32(n)
      let read = try withFrameData(f) { (data) throws(FFmpegError) in
        try check(av_audio_fifo_read(fifo, data, Int32(n)), "encoding sound with '\(settings.codec)'")
      }
      guard Int(read) == n else {
        throw FFmpegError.invalid("encoding sound with '\(settings.codec)'", "read \(read) of \(n) samples")
      }
      f.pointee.pts = nextPTS ?? 0
      nextPTS = (nextPTS ?? 0) + Int64(n)
      try check(avcodec_send_frame(context.pointer, f), "encoding sound with '\(settings.codec)'")
      try write(packet.pointer)
    }
    if flushing {
      try check(avcodec_send_frame(context.pointer, nil), "encoding sound with '\(settings.codec)'")
      try write(packet.pointer)
    }
  }

  /// Calls `body` with the frame's `extended_data` as `void **` for the FIFO.
  private func withFrameData<R>(
    _ f: UnsafeMutablePointer<AVFrame>, _ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>) throws(FFmpegError) -> R
  ) throws(FFmpegError) -> R {
    try f.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: settings.channels) {
      (p) throws(FFmpegError) in try body(p)
    }
  }
}
