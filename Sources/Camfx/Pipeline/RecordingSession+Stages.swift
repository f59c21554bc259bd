import CamfxCore
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// The bodies of the stage threads. Each runs until its input ends, then closes its
/// output ring so the next stage drains and ends in turn.
extension RecordingSession {
  static var nanoseconds: Int32 { 1_000_000_000 }

  /// Source stage: reads the input, applies the limits, drops late live frames.
  func runSourceStage() {
    let live = input.isLive
    let frameDuration = input.frameDuration
    var firstTime: MediaTime?
    var lastTime: MediaTime?
    var previousTime: MediaTime?
    var accepted = 0
    defer {
      // Publish where the video ends, so the audio stage stops at the same instant.
      if let lastTime {
        let step = frameDuration ?? previousTime.map { lastTime - $0 } ?? .zero
        videoEndNanoseconds.store((lastTime + step).converted(to: Self.nanoseconds).value, ordering: .releasing)
      }
      videoFinished.store(true, ordering: .releasing)
      videoProgress.notify()
      rawFrames.close()
      if input.hasAudio { audioBlocks?.close() }
    }
    /// Passes one frame on (or drops it, live); false when the stage must end now.
    func accept(_ frame: VideoFrame, at time: MediaTime) -> Bool {
      if let limit = limits.duration, let first = firstTime, time - first >= limit {
        requestStop(.duration)
        return false
      }
      if live && !isLastFrameBeforeDurationLimit(time, first: firstTime, frameDuration: frameDuration) {
        guard rawFrames.tryPush(frame) else {
          statistics.countDrop(.late)
          return true
        }
      } else if !rawFrames.push(frame, shouldStop: { self.isAborted }) {
        return false
      }
      statistics.framesIn.add(1, ordering: .relaxed)
      statistics.framesAccepted.add(1, ordering: .relaxed)
      accepted += 1
      if firstTime == nil {
        firstTime = time
        videoStartNanoseconds.store(time.converted(to: Self.nanoseconds).value, ordering: .releasing)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        firstFrameWallNanoseconds.store(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), ordering: .releasing)
      }
      previousTime = lastTime
      lastTime = time
      // The audio stage may generate sound up to the start of this frame.
      videoEndNanoseconds.store(time.converted(to: Self.nanoseconds).value, ordering: .releasing)
      videoProgress.notify()
      if let limit = limits.frames, accepted >= limit {
        requestStop(limits.framesAreTheDuration ? .duration : .frames)
        return false
      }
      return true
    }

    // The drops the input counted itself, reported so far.
    var reported = (late: 0, outOfBuffers: 0, corrupt: 0)
    /// Counts the drops the input counted since the last call, before its next frame.
    func countInputDrops() {
      let late = input.framesSkippedLate, outOfBuffers = input.framesDroppedOutOfBuffers, corrupt = input.framesCorrupt
      statistics.countDrops(.late, late - reported.late)
      statistics.countDrops(.outOfBuffers, outOfBuffers - reported.outOfBuffers)
      statistics.countDrops(.corrupt, corrupt - reported.corrupt)
      reported = (late, outOfBuffers, corrupt)
    }

    while !shouldStop {
      let sample: MediaSample<Audio>?
      do {
        sample = try input.nextSample()
        countInputDrops()
      } catch {
        countInputDrops()
        // A read error ends the recording, but what was read is still finished. Before
        // the first frame there is nothing to keep, and the error is the whole story.
        if let first = firstTime, let last = lastTime {
          record(failure: InputFailure(underlying: error, afterSeconds: (last - first + (frameDuration ?? .zero)).seconds))
        } else {
          record(failure: error)
        }
        requestStop(.failed)
        return
      }
      guard let sample else {
        requestStop(.endOfInput)
        return
      }
      switch sample {
      case .audio(let block):
        guard let ring = audioBlocks else { continue }
        if !ring.push(block, shouldStop: { self.isAborted }) { return }

      case .video(let frame):
        if live { gapDetector.note(frame.presentationTime) }
        if !accept(frame, at: frame.presentationTime) { return }
      }
    }
  }

  /// True when `time` is the last frame that fits the `--duration` limit (the next one,
  /// a frame duration later, would reach it). A live source then waits for room instead
  /// of dropping it: the movie is meant to last the duration, and when a slow machine
  /// drops the frames at the end, the file would otherwise end at the last frame that
  /// happened to fit (2 s of a 3 s recording). Nothing comes after it, so waiting
  /// costs no other frame.
  func isLastFrameBeforeDurationLimit(_ time: MediaTime, first: MediaTime?, frameDuration: MediaTime?) -> Bool {
    guard let limit = limits.duration, let first, let frameDuration else { return false }
    return time - first + frameDuration >= limit
  }

  /// Filter stage: runs the chain in place on every accepted frame; never drops. Hands
  /// each filtered frame to the writer, and to the tap stage when a tap wants it.
  func runFilterStage() {
    let live = input.isLive
    var tapStage = TapStageState.notStarted
    defer {
      filteredFrames.close()
      tapFrames.close()
      if isAborted { discardUntilClosed(rawFrames) }
    }
    while let frame = rawFrames.pop(shouldStop: { self.isAborted }) {
      let started = MonotonicClock.nanoseconds()
      if case .bgra = frame { statistics.framesInBGRA.add(1, ordering: .relaxed) }
      let filtered: YUV420Frame?
      do {
        filtered = try framePath.process(frame, shouldStop: { self.isAborted })
      } catch {
        abort(error: error)
        return
      }
      guard let filtered else { return }
      statistics.filterBusyNanoseconds.add(MonotonicClock.nanoseconds() - started, ordering: .relaxed)
      // Every tap is asked once per frame, here, before the writer has the frame.
      var wanting: UInt64 = 0
      for (i, tap) in taps.enumerated() where tap.wantsFrame { wanting |= 1 << UInt64(i) }
      if wanting != 0 && tapStage == .notStarted { tapStage = startTapStage() ? .running : .unavailable }
      if !filteredFrames.push(filtered, shouldStop: { self.isAborted }) { return }
      statistics.framesFiltered.add(1, ordering: .relaxed)
      if wanting != 0 {
        // A reference, not a copy: the taps read the picture while the encoder does.
        let tapped = TappedFrame(frame: filtered, taps: wanting)
        if tapStage == .unavailable {
          statistics.tapFramesDropped.add(1, ordering: .relaxed)
        } else if !live {
          if !tapFrames.push(tapped, shouldStop: { self.isAborted }) { return }
        } else if !tapFrames.tryPush(tapped) {
          statistics.tapFramesDropped.add(1, ordering: .relaxed)
        }
      }
    }
  }

  /// Where the tap stage is, as the filter stage sees it.
  enum TapStageState {
    case notStarted, running
    /// Its thread could not start (the recording has failed): frames for it are dropped.
    case unavailable
  }

  /// Starts the tap stage (on the filter stage, at the first frame a tap wants).
  /// - Returns: false when its thread could not start.
  func startTapStage() -> Bool {
    tapStageEnded.store(false, ordering: .releasing)
    guard spawn("camfx.taps", { self.runTapStage() }) else {
      tapStageEnded.store(true, ordering: .releasing)
      return false
    }
    tapStageStarted.store(true, ordering: .releasing)
    return true
  }

  /// Tap stage: gives each frame to the taps that want it (`FrameTap`). A tap may take
  /// its time: behind a live input the filter stage then drops frames for the taps, and
  /// the writer never waits for them but at the very end (`tapStageEnded`).
  func runTapStage() {
    defer {
      if isAborted { discardUntilClosed(tapFrames) }
      tapStageEnded.store(true, ordering: .releasing)
      // The writer waits for this before it finishes the file.
      filteredFrames.readable.notify()
    }
    while let tapped = tapFrames.pop(shouldStop: { self.isAborted }) {
      let started = MonotonicClock.nanoseconds()
      let video = VideoFrame.yuv420(tapped.frame)
      for (i, tap) in taps.enumerated() where tapped.taps & (1 << UInt64(i)) != 0 { tap.take(video) }
      statistics.tapBusyNanoseconds.add(MonotonicClock.nanoseconds() - started, ordering: .relaxed)
      statistics.framesTapped.add(1, ordering: .relaxed)
    }
  }

  /// After an abort: takes what is left in `ring` (returning frames to their pool)
  /// until its producer has noticed and closed it.
  func discardUntilClosed<Element>(_ ring: FrameRing<Element>) {
    while ring.pop() != nil {}
  }

  /// Audio stage: generates sound that never runs ahead of the accepted video, and ends
  /// exactly where the video ends.
  func runAudioStage() {
    guard let generator, let ring = audioBlocks else { return }
    defer { ring.close() }
    var started = false
    var end = Int64.min
    /// Sleeps until `moved` or the video ends (or an abort or the time-out wakes it).
    func waitForVideo(until moved: () -> Bool) {
      videoProgress.wait { videoFinished.load(ordering: .acquiring) || isAborted || moved() }
    }
    while !isAborted {
      // "Finished" first: a video that starts and finishes between the two reads
      // would otherwise look like no video at all.
      let finishedBefore = videoFinished.load(ordering: .acquiring)
      let start = videoStartNanoseconds.load(ordering: .acquiring)
      if start == .min {
        if finishedBefore { return }  // no video at all
        waitForVideo { videoStartNanoseconds.load(ordering: .acquiring) != .min }
        continue
      }
      if !started {
        generator.start(at: MediaTime(value: start, timescale: Self.nanoseconds))
        started = true
      }
      // Read "finished" first: if it is set, the end read after it is the final one.
      let finished = videoFinished.load(ordering: .acquiring)
      end = videoEndNanoseconds.load(ordering: .acquiring)
      let block: Audio?
      do {
        block = try generator.nextChunk(until: MediaTime(value: end, timescale: Self.nanoseconds))
      } catch {
        // The sound is lost from here (a microphone unplugged); the pictures are not:
        // the audio track ends, and the recording goes on.
        record(soundError: "the sound stopped at \(RecordingStatusLine.fixed(Double(max(0, end - start)) / 1e9, 2)) s: \(error)")
        return
      }
      if let block {
        if !ring.push(block, shouldStop: { self.isAborted }) { return }
      } else if finished {
        return
      } else {
        waitForVideo { videoEndNanoseconds.load(ordering: .acquiring) != end }
      }
    }
  }

  /// Writer stage: drains the video and audio rings into the sink, watches `--max-size`,
  /// and finishes the file once both rings are closed and empty.
  func runWriterStage() {
    let audioBlocks = self.audioBlocks
    do {
      while !isAborted {
        var didWork = false
        // Check "closed" before popping: a ring seen closed and then empty is done.
        let videoClosed = filteredFrames.isClosed
        if let frame = filteredFrames.tryPop() {
          let started = MonotonicClock.nanoseconds()
          try sink.appendVideo(frame)
          statistics.writerBusyNanoseconds.add(MonotonicClock.nanoseconds() - started, ordering: .relaxed)
          statistics.countFrameWritten()
          didWork = true
        }
        var audioDone = true
        if let ring = audioBlocks {
          let audioClosed = ring.isClosed
          if let block = ring.tryPop() {
            let started = MonotonicClock.nanoseconds()
            try sink.appendAudio(block)
            statistics.writerBusyNanoseconds.add(MonotonicClock.nanoseconds() - started, ordering: .relaxed)
            statistics.audioChunksWritten.add(1, ordering: .relaxed)
            didWork = true
            audioDone = false
          } else {
            audioDone = audioClosed
          }
        }
        if didWork {
          let bytes = sink.bytesWritten
          statistics.bytesWritten.store(bytes, ordering: .relaxed)
          // Each file stops taking packets at the limit (MovieFileOutput); the recording
          // ends when the largest has, not when the files together reach it.
          if let limit = limits.bytes, sink.largestOutputBytes >= limit { requestStop(.maxSize) }
          if let reason = sink.stopRequest { requestStop(reason) }
        } else if videoClosed && audioDone && tapStageEnded.load(ordering: .acquiring) {
          // A recording that failed before its first frame (a camera that never
          // started) leaves nothing behind: no empty movie.
          if hasFailed && statistics.framesWritten.load(ordering: .relaxed) == 0 { break }
          let started = MonotonicClock.nanoseconds()
          try sink.finish()
          statistics.writerBusyNanoseconds.add(MonotonicClock.nanoseconds() - started, ordering: .relaxed)
          statistics.bytesWritten.store(sink.bytesWritten, ordering: .relaxed)
          publishKeptVideo()
          return
        } else {
          // Both rings share this signal (RecordingSession.init).
          filteredFrames.readable.wait {
            filteredFrames.hasElements || audioBlocks?.hasElements == true
              || filteredFrames.isClosed && audioBlocks?.isClosed != false && tapStageEnded.load(ordering: .acquiring)
              || isAborted
          }
        }
      }
    } catch {
      record(failure: error)
      aborted.store(true, ordering: .releasing)
      stopRequested.store(true, ordering: .releasing)
      wakeAllStages()
    }
    sink.cancel()
    statistics.bytesWritten.store(sink.bytesWritten, ordering: .relaxed)
    publishKeptVideo()
    discardUntilClosed(filteredFrames)
    if let audioBlocks { discardUntilClosed(audioBlocks) }
  }

  /// What the finished output holds, for the summary.
  private func publishKeptVideo() {
    guard let kept = sink.videoKept else { return }
    keptNanoseconds.store(Int64(kept.seconds * 1e9), ordering: .releasing)
    keptFrames.store(kept.frames, ordering: .releasing)
  }
}
