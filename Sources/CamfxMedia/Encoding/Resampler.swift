import CFFmpeg
import CamfxFFmpeg
import CamfxFrames

/// Owns a `SwrContext` converting PCM between rates, channel layouts and sample
/// formats (libswresample), and the scratch buffer its output goes through.
package final class Resampler {
  private let context: OpaquePointer
  let inputRate: Int, inputChannels: Int, inputFormat: AVSampleFormat
  let outputRate: Int, outputChannels: Int, outputFormat: AVSampleFormat
  /// Output scratch planes (`av_samples_alloc`), grown only when a bigger input arrives.
  private var scratch: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
  private var scratchFrames = 0

  package init(
    inputRate: Int, inputChannels: Int, inputFormat: AVSampleFormat,
    outputRate: Int, outputChannels: Int, outputFormat: AVSampleFormat
  ) throws(FFmpegError) {
    self.inputRate = inputRate; self.inputChannels = inputChannels; self.inputFormat = inputFormat
    self.outputRate = outputRate; self.outputChannels = outputChannels; self.outputFormat = outputFormat
    var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
    av_channel_layout_default(&inLayout, Int32(inputChannels))
    av_channel_layout_default(&outLayout, Int32(outputChannels))
    defer { av_channel_layout_uninit(&inLayout); av_channel_layout_uninit(&outLayout) }
    let conversion = "converting sound from \(inputChannels) ch \(inputRate) Hz to \(outputChannels) ch \(outputRate) Hz"
    var ctx: OpaquePointer? = nil
    try check(
      swr_alloc_set_opts2(
        &ctx, &outLayout, outputFormat, Int32(outputRate), &inLayout, inputFormat, Int32(inputRate), 0, nil),
      conversion)
    guard let ctx else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: conversion) }
    // swr_init runs before `context` and `scratch` are set: a throw once every stored
    // property is set runs deinit, which frees both (freeing them here as well freed
    // them twice: found by a fuzzer). Until then only the local `ctx` is ours to free.
    let r = swr_init(ctx)
    if r < 0 {
      var c: OpaquePointer? = ctx
      swr_free(&c)
      throw FFmpegError(code: r, operation: conversion)
    }
    context = ctx
    scratch = .allocate(capacity: max(outputChannels, 1))
    scratch.initialize(repeating: nil, count: max(outputChannels, 1))
  }

  deinit {
    var c: OpaquePointer? = context
    swr_free(&c)
    if scratchFrames > 0 { av_freep(scratch) }
    scratch.deallocate()
  }

  private func ensureScratch(frames: Int) throws(FFmpegError) {
    guard frames > scratchFrames else { return }
    if scratchFrames > 0 { av_freep(scratch); scratchFrames = 0 }
    try check(
      av_samples_alloc(scratch, nil, Int32(outputChannels), Int32(frames), outputFormat, 0), "converting sound")
    scratchFrames = frames
  }

  /// Converts `frames` interleaved input frames at `input` and appends them to `fifo`.
  func convert(input: UnsafeRawPointer?, frames: Int, into fifo: OpaquePointer) throws(FFmpegError) {
    let capacity = Int(swr_get_out_samples(context, Int32(frames)))
    try ensureScratch(frames: max(capacity, 1))
    var inPlanes: [UnsafePointer<UInt8>?] = [input?.assumingMemoryBound(to: UInt8.self)]
    let produced = try check(
      inPlanes.withUnsafeMutableBufferPointer { p in
        swr_convert(context, scratch, Int32(scratchFrames), input == nil ? nil : p.baseAddress, Int32(frames))
      }, "converting sound")
    if produced > 0 {
      try scratch.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: outputChannels) {
        (p) throws(FFmpegError) in
        let written = try check(av_audio_fifo_write(fifo, p, produced), "converting sound")
        if written < produced { throw FFmpegError.invalid("converting sound", "wrote \(written) of \(produced) samples") }
      }
    }
  }

  /// Converts `frames` frames from input planes (`extended_data`; nil to flush) to
  /// interleaved output returned as Int16 (for S16 output, as `MovieReader` uses).
  package func convertToInterleaved(planes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, frames: Int) throws(FFmpegError) -> [Int16] {
    precondition(outputFormat == AV_SAMPLE_FMT_S16)
    let capacity = max(Int(swr_get_out_samples(context, Int32(frames))), 1)
    var out = [Int16](repeating: 0, count: capacity * outputChannels)
    let result = out.withUnsafeMutableBytes { raw -> Int32 in
      var dst: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      return withUnsafeMutablePointer(to: &dst) { swr_convert(context, $0, Int32(capacity), planes, Int32(frames)) }
    }
    let produced = try check(result, "converting sound")
    out.removeLast(out.count - Int(produced) * outputChannels)
    return out
  }

  /// Drains the samples the resampler still holds into `fifo`.
  func flush(into fifo: OpaquePointer) throws(FFmpegError) {
    try convert(input: nil, frames: 0, into: fifo)
  }
}
