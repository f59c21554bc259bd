import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames

extension MovieWriter {
  /// Encodes interleaved S16 PCM audio, like `AVAssetWriterInput.append` on an audio input.
  ///
  /// The first buffer's `presentationTime` (minus the session start) places the audio
  /// on the video's timeline; after that, time advances by the samples appended. Any
  /// rate or channel count is resampled to `AudioSettings`, but it must not change
  /// between buffers. Samples before the session start are trimmed. Audio appended
  /// before the session has started (no `startSession` and no video frame yet) is held
  /// until the first video frame fixes the start, so the video defines time zero.
  /// - Throws: `FFmpegError`; `AVERROR(EINVAL)` if the movie has no audio track or the
  ///   format changed (the writer keeps writing), other codes from FFmpeg (the writer failed).
  public func append(audio buffer: PCMBuffer) throws(FFmpegError) {
    guard audio != nil else {
      throw FFmpegError.invalid("append audio", "the movie was set up without an audio track")
    }
    try startWriting()
    try audioLock.withLock { _ throws(FFmpegError) in
      guard let start = currentSessionStart else {
        pendingAudio.append(buffer)
        hasPendingAudio.store(true, ordering: .releasing)
        return
      }
      try encodeAudioLocked(buffer, start: start)
    }
    try publishMadePackets()
  }

  /// Encodes the audio held back until the session start was known.
  func flushPendingAudio() throws(FFmpegError) {
    guard hasPendingAudio.load(ordering: .acquiring) else { return }
    try audioLock.withLock { _ throws(FFmpegError) in
      guard let start = currentSessionStart ?? pendingAudio.first.map({ sessionStart(orStartAt: $0.presentationTime) })
      else { return }
      let held = pendingAudio
      pendingAudio.removeAll()
      hasPendingAudio.store(false, ordering: .releasing)
      for buffer in held { try encodeAudioLocked(buffer, start: start) }
    }
    try publishMadePackets()
  }

  /// Places `buffer` relative to `start` and encodes what fills whole AAC frames.
  /// Call with `audioLock` held.
  private func encodeAudioLocked(_ buffer: PCMBuffer, start: MediaTime) throws(FFmpegError) {
    guard let audio, let audioStream else { return }
    let inRate = Int32(buffer.sampleRate)
    let skip = max(0, Self.ticks(start, timescale: inRate) - Self.ticks(buffer.presentationTime, timescale: inRate))
    if skip >= Int64(buffer.frameCount) { return }
    let outRate = Int32(audio.settings.sampleRate)
    let startTicks = max(0, Self.ticks(buffer.presentationTime, timescale: outRate) - Self.ticks(start, timescale: outRate))
    // A format change is the caller's mistake and leaves the writer writing.
    try audio.push(buffer, skipFrames: Int(skip), startTicks: startTicks)
    do throws(FFmpegError) {
      try audio.encodeAvailable(flushing: false) { (packet) throws(FFmpegError) in
        try drain(encoder: audio.context.pointer, stream: audioStream, packet: packet, name: audio.settings.codec)
      }
    } catch {
      fail(error)
      throw error
    }
  }

  /// Encodes what is left in the FIFO and flushes the audio encoder. Call once the
  /// video has ended (and was published): the audio held for it goes on, then the rest.
  func finishAudio() throws(FFmpegError) {
    guard let audio, let audioStream else { return }
    try flushPendingAudio()
    try audioLock.withLock { _ throws(FFmpegError) in
      do throws(FFmpegError) {
        try audio.encodeAvailable(flushing: true) { (packet) throws(FFmpegError) in
          try drain(encoder: audio.context.pointer, stream: audioStream, packet: packet, name: audio.settings.codec)
        }
      } catch {
        fail(error)
        throw error
      }
    }
    // The flushed packets join the hold behind those it keeps, and everything goes on
    // in that order: what the hold kept, then the flush's.
    try publishMadePackets()
    audioHold.release()
    do throws(FFmpegError) {
      try audioHold.publishReady(bus.publish)
    } catch {
      fail(error)
      throw error
    }
  }
}
