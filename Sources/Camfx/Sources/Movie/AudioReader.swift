import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia

/// Reads the sound of any file libavformat opens (a movie's sound track, or a music
/// file with no video at all) as interleaved S16 PCM at one rate and channel count,
/// like `AVAssetReaderAudioMixOutput`:
///
///     let sound = try AudioReader(path: "song.mp3", sampleRate: 48_000, channels: 2)!
///     try sound.seek(to: MediaTime(value: 30, timescale: 1))
///     while let pcm = try sound.nextBuffer() { ... }  // stamped on the file's timeline
///
/// Timestamps count from `origin`: the video's first timestamp when the file has video
/// (so that sound cut at a time lines up with the picture cut at that time), else the
/// sound's own first timestamp.
public final class AudioReader {
  public let path: String
  public let sampleRate: Int
  public let channels: Int
  /// Where time zero is on the file's own timeline.
  public let origin: MediaTime
  /// The container's duration, when known.
  public let duration: MediaTime?
  public let codecName: String

  private let input: InputContext
  private let streamIndex: Int32
  private let timeBase: AVRational
  private let decoder: FFmpegCodecContext
  private var resampler: Resampler?
  private let packet: FFmpegPacket
  private let frame: FFmpegFrame
  private var endOfFile = false
  private var drained = false
  private var nextTime: MediaTime?

  /// `nil` for a file with no sound.
  /// - Throws: `FFmpegError` for a file that cannot be opened or decoded.
  public init?(path: String, sampleRate: Int, channels: Int) throws(FFmpegError) {
    self.path = path
    self.sampleRate = sampleRate
    self.channels = channels
    input = try InputContext(path: path)
    let ctx = input.context
    let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    if a == CAMFX_AVERROR_STREAM_NOT_FOUND { return nil }
    try check(a, cannot: "read '\(path)'")
    streamIndex = a
    let stream = ctx.pointee.streams[Int(a)]!
    timeBase = stream.pointee.time_base
    let codecID = stream.pointee.codecpar.pointee.codec_id
    let what = "decode the \(String(cString: avcodec_get_name(codecID))) sound of '\(path)'"
    guard let codec = avcodec_find_decoder(codecID) else {
      throw FFmpegError.cannot(what, code: CAMFX_AVERROR_DECODER_NOT_FOUND, message: "this FFmpeg has no decoder for it")
    }
    decoder = try FFmpegCodecContext(codec: codec)
    try check(avcodec_parameters_to_context(decoder.pointer, stream.pointee.codecpar), cannot: what)
    decoder.pointer.pointee.pkt_timebase = timeBase
    try check(avcodec_open2(decoder.pointer, codec, nil), cannot: what)
    codecName = String(cString: avcodec_get_name(decoder.pointer.pointee.codec_id))
    let v = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    let originStream = v >= 0 ? ctx.pointee.streams[Int(v)]! : stream
    let start = originStream.pointee.start_time
    let originBase = originStream.pointee.time_base
    origin = start != CAMFX_AV_NOPTS_VALUE
      ? MediaTime(ticks: start, in: originBase) : .zero
    duration = ctx.pointee.duration > 0 ? MediaTime(value: ctx.pointee.duration, timescale: 1_000_000) : nil
    for i in 0..<Int(ctx.pointee.nb_streams) where Int32(i) != a {
      ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
    }
    packet = try FFmpegPacket()
    frame = try FFmpegFrame()
  }

  /// Moves to `time` (from `origin`) or just before it; the next buffers may start a
  /// little earlier, for a caller that cuts to the sample.
  public func seek(to time: MediaTime) throws(FFmpegError) {
    let target = origin + time
    try check(av_seek_frame(input.context, streamIndex, target.ticks(in: timeBase), AVSEEK_FLAG_BACKWARD), "seeking in '\(path)'")
    avcodec_flush_buffers(decoder.pointer)
    resampler = nil
    endOfFile = false
    drained = false
    nextTime = nil
  }

  /// The next block of sound, stamped from `origin`; `nil` at the end.
  public func nextBuffer() throws(FFmpegError) -> PCMBuffer? {
    while true {
      let r = avcodec_receive_frame(decoder.pointer, frame.pointer)
      if r == 0 {
        defer { av_frame_unref(frame.pointer) }
        if let pcm = try convert() { return pcm }
        continue
      }
      if r == CAMFX_AVERROR_EOF {
        guard !drained, let resampler else { return nil }
        drained = true
        return stamp(try resampler.convertToInterleaved(planes: nil, frames: 0), at: nil)
      }
      guard r == CAMFX_AVERROR_EAGAIN else { try check(r, "decoding '\(path)'"); continue }
      if endOfFile { return nil }
      let read = av_read_frame(input.context, packet.pointer)
      if read == CAMFX_AVERROR_EOF {
        endOfFile = true
        try check(avcodec_send_packet(decoder.pointer, nil), "decoding '\(path)'")
        continue
      }
      try check(read, "reading '\(path)'")
      defer { av_packet_unref(packet.pointer) }
      guard packet.pointer.pointee.stream_index == streamIndex else { continue }
      let s = avcodec_send_packet(decoder.pointer, packet.pointer)
      if s < 0 && s != CAMFX_AVERROR_INVALIDDATA { try check(s, "decoding '\(path)'") }
    }
  }

  private func convert() throws(FFmpegError) -> PCMBuffer? {
    let f = frame.pointer
    if resampler == nil {
      let d = decoder.pointer.pointee
      resampler = try Resampler(
        inputRate: Int(d.sample_rate), inputChannels: Int(d.ch_layout.nb_channels), inputFormat: d.sample_fmt,
        outputRate: sampleRate, outputChannels: channels, outputFormat: AV_SAMPLE_FMT_S16)
    }
    let ts = f.pointee.best_effort_timestamp != CAMFX_AV_NOPTS_VALUE ? f.pointee.best_effort_timestamp : f.pointee.pts
    let time = ts != CAMFX_AV_NOPTS_VALUE ? MediaTime(ticks: ts, in: timeBase) - origin : nil
    let samples = try resampler!.convertToInterleaved(
      planes: UnsafeMutableRawPointer(f.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
      frames: Int(f.pointee.nb_samples))
    return stamp(samples, at: time)
  }

  private func stamp(_ samples: [Int16], at time: MediaTime?) -> PCMBuffer? {
    guard !samples.isEmpty else { return nil }
    let t = time ?? nextTime ?? .zero
    let pcm = PCMBuffer(samples: samples, channels: channels, sampleRate: sampleRate, presentationTime: t)
    nextTime = t + pcm.duration
    return pcm
  }
}
