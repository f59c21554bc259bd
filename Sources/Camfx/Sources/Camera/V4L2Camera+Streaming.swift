import CV4L2
import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxPixelFormats

#if canImport(Glibc)
import Glibc
#endif

extension V4L2Camera {
  /// The next frame from the camera, converted to BGRA in a pooled buffer and stamped
  /// with the driver's monotonic timestamp; `nil` after `stop()`.
  ///
  /// Frames the driver flags as bad, damaged MJPEG or H.264 frames, H.264 frames before
  /// the stream's first keyframe, the `--skip` warm-up frames
  /// and frames arriving while the pool is empty are dropped (and counted) here; the
  /// driver buffer goes back to the driver as soon as its pixels are converted.
  ///
  /// - Throws: `V4L2Error(.disconnected)` when the camera is unplugged (`ENODEV`/`EIO`
  ///   from `VIDIOC_DQBUF`), or the failing call; a timeout after `frameTimeout` s
  ///   without frames.
  public func nextFrame() throws -> PixelBuffer? {
    while let frame = try nextVideoFrame() {
      if case .bgra(let buffer) = frame { return buffer }
    }
    return nil
  }

  /// As a `MediaSource`: the next frame in the format asked for (a camera has no sound).
  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    try nextVideoFrame().map { .video($0) }
  }

  /// True when the camera's format is one camfx converts straight to yuv420p (YUYV,
  /// NV12, I420, YV12, MJPEG, H.264); RGB cameras deliver BGRA.
  public var canDeliverYUV420Frames: Bool {
    switch layout {
    case .yuyv, .nv12, .planar420, .compressed: return true
    case .rgb24, .bgr24: return false
    }
  }

  /// From now on, `nextVideoFrame()` converts frames straight to yuv420p, for a
  /// pipeline whose filters and encoder take them (no BGRA in between).
  /// - Throws: `FFmpegError` when the frames cannot be allocated.
  public func deliverYUV420Frames() throws {
    precondition(canDeliverYUV420Frames, "this camera's format has no yuv420p conversion")
    if yuv420Pool == nil { yuv420Pool = try YUV420FramePool(geometry: geometry, capacity: pool.capacity, kind: .owned) }
  }

  /// As a `MediaSource`: YUYV, NV12 and I420 pictures get `chain` band by band as they
  /// are converted to yuv420p, and MJPEG ones as libjpeg-turbo's planes are mapped to
  /// the pipeline's range (or after libavcodec decoded them); H.264 pictures do not.
  public func filterWhileConverting(_ chain: FilterChain) {
    precondition(chain.runsOnYUV420Bands && chain.inputGeometry == geometry, "a chain for yuv420p bands of \(geometry)")
    bandFilters = chain
  }

  /// The next frame, BGRA or (after `deliverYUV420Frames()`) yuv420p; see `nextFrame()`.
  public func nextVideoFrame() throws -> VideoFrame? {
    try nextBuffer { buffer in try take(buffer) }
  }

  /// True when the camera sends compressed frames (MJPEG, H.264) that can be recorded
  /// as they are (`--video-codec copy`).
  public var deliversCompressedFrames: Bool {
    if case .compressed = layout { return true }
    return false
  }

  /// The most bytes one frame can take (the largest driver buffer).
  public var largestFrameBytes: Int { buffers.map(\.length).max() ?? 0 }

  /// Calls `body` with the next frame's bytes as the camera sent them (one JPEG for an
  /// MJPEG camera, one access unit for H.264) and its timestamp, without decoding;
  /// `false` after `stop()`. The bytes are the driver's buffer: valid only during the
  /// call. `body` returns whether it took the frame (an H.264 copy skips frames until
  /// its first keyframe).
  ///
  /// Frames that cannot be what they claim are dropped and counted as corrupt here: an
  /// empty buffer, a JPEG without its start and end markers (cut short by the camera or
  /// the USB bus), H.264 without a start code.
  /// - Throws: as `nextFrame()`.
  public func nextCompressedFrame(_ body: (UnsafeRawBufferPointer, MediaTime) throws -> Bool) throws -> Bool {
    precondition(deliversCompressedFrames, "the camera does not send compressed frames")
    let taken: Bool? = try nextBuffer { buffer in
      defer { _ = try? queue(buffer.index) }
      guard let (bytes, time) = accept(buffer) else { return nil }
      guard isWholeCompressedFrame(bytes) else {
        corrupt.add(1, ordering: .relaxed)
        return nil
      }
      guard try body(bytes, time) else { return nil }
      delivered.add(1, ordering: .relaxed)
      return true
    }
    return taken ?? false
  }

  /// True when `bytes` can be a whole frame of the camera's compressed format: a JPEG
  /// from its SOI to its EOI marker (drivers may pad the buffer with zeros after it), an
  /// H.264 access unit that begins with a start code.
  func isWholeCompressedFrame(_ bytes: UnsafeRawBufferPointer) -> Bool {
    CompressedFrameDecoder.isWholeFrame(bytes, codec: format.pixelFormat == .h264 ? .h264 : .mjpeg)
  }

  /// Dequeues buffers until `handle` makes something of one (it gives the buffer back
  /// to the driver); `nil` after `stop()`.
  private func nextBuffer<T>(_ handle: (v4l2_buffer) throws -> T?) throws -> T? {
    if !started { try startStreaming() }
    // However the driver behaves (poll ready but nothing to dequeue, only bad frames),
    // this call gives up after `frameTimeout` seconds without a frame, so a recording's
    // source stage always gets to see a stop request.
    let deadline = MonotonicClock.seconds() + Double(Self.frameTimeout)
    while streaming {
      if MonotonicClock.seconds() > deadline {
        throw V4L2Error(.failed, code: ETIMEDOUT, operation: "VIDIOC_DQBUF", device: path,
                        detail: "no frame for \(Self.frameTimeout) s")
      }
      var descriptor = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, 1000)
      if ready < 0 {
        let code = errno
        if code == EINTR { continue }
        throw V4L2Error(errno: code, operation: "poll", device: path)
      }
      if ready == 0 { continue }
      // POLLERR / POLLHUP: VIDIOC_DQBUF below reports why (ENODEV after unplugging).
      var buffer = v4l2_buffer()
      buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
      buffer.memory = V4L2_MEMORY_MMAP.rawValue
      let status = device.ioctlStatus(CAMFX_VIDIOC_DQBUF, &buffer)
      if status == EAGAIN {
        if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
          throw V4L2Error(.disconnected, code: ENODEV, operation: "poll", device: path)
        }
        MonotonicClock.sleep(seconds: 0.001)  // poll said ready, yet nothing to dequeue: do not spin
        continue
      }
      if status != 0 {
        throw V4L2Error(errno: status, operation: "VIDIOC_DQBUF", device: path)
      }
      if let result = try handle(buffer) { return result }
    }
    return nil
  }

  /// The bytes and timestamp of a dequeued buffer, or nil for one that is dropped (a
  /// driver error, a warm-up frame), counting drops.
  private func accept(_ buffer: v4l2_buffer) -> (UnsafeRawBufferPointer, MediaTime)? {
    if let last = lastSequence, buffer.sequence &- last > 1, buffer.sequence &- last < 1 << 30 {
      droppedByDriver.add(Int(buffer.sequence &- last &- 1), ordering: .relaxed)
      // H.264 frames refer to the ones before: the decoder must not take the next
      // frames as if nothing were missing.
      decoder?.framesWereLost()
    }
    lastSequence = buffer.sequence
    if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
      droppedByDriver.add(1, ordering: .relaxed)
      decoder?.framesWereLost()
      return nil
    }
    if framesToSkip > 0 {
      framesToSkip -= 1
      return nil
    }
    let time: MediaTime
    if timestampsAreMonotonic {
      let micros = Int64(buffer.timestamp.tv_sec) * 1_000_000 + Int64(buffer.timestamp.tv_usec)
      time = MediaTime(value: micros, timescale: 1_000_000)
    } else {
      time = MediaTime(value: MonotonicClock.nanoseconds() / 1000, timescale: 1_000_000)
    }
    let mapped = buffers[Int(buffer.index)]
    // A driver that leaves bytesused at 0 means a full buffer of raw pixels, but an
    // empty compressed frame.
    let unset = deliversCompressedFrames ? 0 : mapped.length
    let used = min(buffer.bytesused == 0 ? unset : Int(buffer.bytesused), mapped.length)
    // A compressed frame that fills its buffer to the last byte was cut short, or is not
    // a frame at all: v4l2loopback hands a new reader a first buffer whose bytesused is
    // the buffer's size, holding a newer frame's start and an older one's rest.
    if deliversCompressedFrames && used == mapped.length {
      corrupt.add(1, ordering: .relaxed)
      decoder?.framesWereLost()
      return nil
    }
    return (UnsafeRawBufferPointer(start: mapped.start, count: used), time)
  }

  /// Converts one dequeued buffer (or drops it) and gives it back to the driver.
  private func take(_ buffer: v4l2_buffer) throws -> VideoFrame? {
    // Back to the driver as soon as the pixels are converted. A failing VIDIOC_QBUF
    // (the camera unplugged) surfaces from the next VIDIOC_DQBUF, after this frame.
    defer { _ = try? queue(buffer.index) }
    guard let (bytes, time) = accept(buffer) else { return nil }
    let used = bytes.count
    let source = bytes.baseAddress!
    guard used >= minimumFrameBytes else {
      corrupt.add(1, ordering: .relaxed)
      return nil
    }
    let yuv: YUVSourceLayout?
    switch layout {
    case .yuyv(let stride):
      yuv = .yuyv(source, bytesPerRow: stride)
    case .nv12(let stride, let chromaOffset):
      yuv = .nv12(luma: source, lumaBytesPerRow: stride, chroma: source + chromaOffset, chromaBytesPerRow: stride)
    case .planar420(let stride, let cbOffset, let crOffset, let chromaStride):
      yuv = .i420(luma: source, lumaBytesPerRow: stride, cb: source + cbOffset, cr: source + crOffset, chromaBytesPerRow: chromaStride)
    case .rgb24, .bgr24, .compressed:
      yuv = nil
    }
    // An H.264 frame is decoded before a pooled frame is taken: one the pool has no room
    // for must still be decoded, as the next frames refer to it. A JPEG bound for
    // yuv420p is decoded straight into the pooled frame's planes, below.
    let jpegIntoPlanes = yuv420Pool != nil && decoder?.codec == .mjpeg
    if let decoder, !jpegIntoPlanes, !counted(decoder.decode(bytes, width: geometry.width, height: geometry.height)) {
      return nil
    }
    // yuv420p straight from the camera's YUV or JPEG, when asked for.
    if let yuv420Pool {
      // Never waits: a live source drops a frame when every pooled one is held.
      guard var frame = try yuv420Pool.acquire(presentationTime: time, shouldStop: { true }) else {
        droppedOutOfBuffers.add(1, ordering: .relaxed)
        return nil
      }
      if let yuv, let bandFilters {
        yuv.convert(to: frame.picture, filteringBandsWith: bandFilters)
        frame.filteredWhileConverting = true
      } else if let yuv {
        yuv.convert(to: frame.picture)
      } else if let decoder, jpegIntoPlanes {
        guard counted(decoder.decode(bytes, into: frame.picture, filteringBandsWith: bandFilters)) else { return nil }
        frame.filteredWhileConverting = bandFilters != nil
      } else if let decoder, !decoder.copyPicture(into: frame.picture) {
        corrupt.add(1, ordering: .relaxed)
        return nil
      }
      delivered.add(1, ordering: .relaxed)
      return .yuv420(frame)
    }
    guard let frame = pool.tryAcquire(presentationTime: time) else {
      droppedOutOfBuffers.add(1, ordering: .relaxed)
      return nil
    }
    switch layout {
    case .rgb24(let stride):
      PixelConverter.convertRGB24(source: source, sourceBytesPerRow: stride, to: frame)
    case .bgr24(let stride):
      PixelConverter.convertBGR24(source: source, sourceBytesPerRow: stride, to: frame)
    case .compressed:
      guard let decoder, decoder.copyPicture(into: frame) else {
        corrupt.add(1, ordering: .relaxed)
        return nil
      }
    case .yuyv, .nv12, .planar420:
      yuv?.convert(to: frame)
    }
    delivered.add(1, ordering: .relaxed)
    return .bgra(frame)
  }

  /// True for a decoded frame; counts a damaged one. Frames before an H.264 stream's
  /// first keyframe are not counted: like the warm-up frames, they come before the
  /// recording starts.
  private func counted(_ outcome: CompressedFrameDecoder.Outcome) -> Bool {
    switch outcome {
    case .decoded: return true
    case .corrupt: corrupt.add(1, ordering: .relaxed)
    case .waitingForKeyframe: break
    }
    return false
  }

  /// Opens the first `/dev/video*` node that is a camera and accepts `settings`, or
  /// returns `nil` when there is none (the caller falls back to the test source).
  public static func openFirst(settings: CameraSettings = CameraSettings(), in directory: String = "/dev") -> V4L2Camera? {
    for path in CameraDevice.videoNodes(in: directory) {
      if let camera = try? V4L2Camera(path: path, settings: settings) { return camera }
    }
    return nil
  }
}
