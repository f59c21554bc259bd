import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import Synchronization

/// One output attached to a `PacketBus`: its queue (`OutputQueue`) and the one worker
/// thread that alone calls the output, so a slow disk or a dead server holds up that
/// output only. The same piece for every output, a file's, a live stream's or a user's
/// own:
///
///     bus.publish ──▶ queue (bounded; policy: OutputDelivery) ──▶ worker ──▶ output.write
///                     (a reference, no copy)                      (reconnects, reports)
///
/// - A failed write ends the output (`hasEnded`, the error in its report) unless it
///   `reconnects`: then it is disconnected, waits 1, 2, 4 ... at most 30 s, and goes on
///   at the next keyframe.
/// - Detaching (`PacketBus.unsubscribe`) drains the queue and finishes the output, or
///   discards what is queued and cancels it.
///
/// `@unchecked Sendable`: the output is touched by the worker only (and `interrupt()`,
/// which outputs make safe from any thread); the queue and figures are under `state`.
public final class PacketSubscription: @unchecked Sendable {
  public let output: any MovieOutput
  public let delivery: OutputDelivery
  /// The output's name (its path or URL), for messages.
  public let name: String
  /// True when this output failing fails the recording: a file of the recording's own.
  /// A live output, or an output attached for a while (an event clip), ends alone.
  public let failureEndsRecording: Bool
  /// True when a full queue makes the publisher wait (the recording's own files; any
  /// output of a recording from stored media, where waiting loses nothing). False for
  /// an output beside a live recording (an event clip): a full queue ends it alone,
  /// rather than hold the encoder up until the camera drops frames.
  let waitsWhenFull: Bool

  /// How a worker ends.
  enum Ending {
    /// Writes what is queued, then finishes the output.
    case drain
    /// Drops what is queued (a live output) or writes it (a file, which never loses a
    /// packet), then cancels the output.
    case cancel
  }

  private struct State {
    var ending: Ending?
    /// The output takes no more packets: it failed, or its worker has ended.
    var ended = false
    /// It ended by itself (a failed write), not by being detached.
    var endedByItself = false
    var replayedFromSeconds: Double?
    var connected = true
    var failure: FFmpegError?
    var stalls = 0
    var stalledNanoseconds: Int64 = 0
    var report: OutputReport
    var bytes: Int64 = 0
    var videoPackets = 0
    var videoEnd = 0.0
    var stopRequest: String?
  }

  private let queue: OutputQueue
  private let state: Mutex<State>
  /// Rings when a packet is queued or the worker is told to end.
  private let work = WakeSignal()
  /// Rings when the worker has taken a packet (room for a waiting publisher) or ended.
  private let room = WakeSignal()
  private var worker: NamedThread?
  /// Held through `end`: two may end one output at once (the bus finishing while an
  /// event recorder detaches the same clip); the second waits for the first, and the
  /// worker is joined once.
  private let endingOnce = Mutex(())
  private let events: (@Sendable (String) -> Void)?

  init(
    output: any MovieOutput, limits: OutputQueueLimits, failureEndsRecording: Bool, waitsWhenFull: Bool,
    events: (@Sendable (String) -> Void)?
  ) {
    self.output = output
    delivery = output.delivery
    self.failureEndsRecording = failureEndsRecording && !delivery.isLive
    self.waitsWhenFull = waitsWhenFull
    let report = output.report
    name = report.name
    queue = OutputQueue(delivery: delivery, limits: limits)
    state = Mutex(State(report: report))
    self.events = events
  }

  func start() throws(NamedThread.StartError) {
    worker = try NamedThread("camfx.out") { [self] in run() }
  }

  // MARK: Figures (any thread)

  /// How the output is doing: its own report, with its queue's drops and stalls, and
  /// its own length and bit rate.
  public var report: OutputReport {
    state.withLock { s in
      var report = s.report
      report.videoSeconds = s.videoEnd
      report.bitsPerSecond = s.videoEnd > 0 ? Double(report.bytes) * 8 / s.videoEnd : 0
      report.queuedPackets = queue.count
      report.queuedBytes = queue.bytes
      if delivery.isLive {
        report.droppedFrames = queue.droppedFrames
        report.droppedGroups = queue.droppedGroups
      }
      if s.stalls > 0 {
        report.stalls = s.stalls
        report.stalledSeconds = Double(s.stalledNanoseconds) / 1e9
      }
      return report
    }
  }
  public var bytesWritten: Int64 { state.withLock { $0.bytes } }
  public var videoPacketsWritten: Int { state.withLock { $0.videoPackets } }
  public var videoEndSeconds: Double { state.withLock { $0.videoEnd } }
  public var stopRequest: String? { state.withLock { $0.stopRequest } }
  /// Where the packets the bus kept and handed over at `subscribe` begin (seconds),
  /// or nil when the output started with the next packet.
  public var replayedFromSeconds: Double? { state.withLock { $0.replayedFromSeconds } }
  /// True once the output has ended by itself and takes no more packets (it failed, or
  /// its pipe's reader left).
  public var hasEnded: Bool { state.withLock { $0.endedByItself } }
  /// The error that ended the output, if one did.
  public var failure: FFmpegError? { state.withLock { $0.failure } }

  // MARK: The publisher's side

  /// Gives the worker `packet`: queued, dropped by the live policy, or — for a file at
  /// its limit — queued once the worker has made room, however long that takes.
  func deliver(_ packet: EncodedPacket) {
    var waitedSince: Int64? = nil
    while true {
      var queued = 0
      let offer: OutputQueue.Offer? = state.withLock { s in
        defer { queued = queue.count }
        return s.ended || s.ending != nil ? nil : queue.offer(packet, connected: s.connected)
      }
      if offer == .full && !waitsWhenFull {
        endAlone(because: "its queue is full (\(queued) packets): it does not keep up")
        break
      }
      if offer == .full {
        if waitedSince == nil { waitedSince = MonotonicClock.nanoseconds() }
        room.wait(timeoutNanoseconds: 50_000_000) {
          state.withLock { s in s.ended || s.ending != nil || !queue.isFull(for: packet) }
        }
        continue
      }
      // A live output is woken for every packet (its viewers wait for it); a file only
      // once a batch is queued, since each wake-up costs the publisher a system call
      // (its worker also looks every `fileWakeInterval` by itself).
      if offer == .queued && (delivery.isLive || queued >= Self.fileWakeBatch) { work.notify() }
      break
    }
    if let waitedSince {
      let waited = MonotonicClock.nanoseconds() - waitedSince
      state.withLock { s in
        s.stalls += 1
        s.stalledNanoseconds += waited
      }
    }
  }

  /// Ends the output by itself from the publisher's side: nothing more is queued, what
  /// is queued is dropped, and its worker cancels it (keeping what it wrote) once its
  /// current write returns.
  private func endAlone(because reason: String) {
    endByItself(FFmpegError.invalid("writing '\(name)'", reason), tellingTheWorker: true)
    work.notify()
  }

  /// `error` ended the output by itself: it takes no more packets, what is queued is
  /// dropped, and the line saying so is told. The publisher also tells the worker to
  /// cancel it (`tellingTheWorker`); the worker, which failed the write, cancels it itself.
  private func endByItself(_ error: FFmpegError, tellingTheWorker: Bool) {
    state.withLock { s in
      s.failure = error
      s.ended = true
      s.endedByItself = true
      if tellingTheWorker && s.ending == nil { s.ending = .cancel }
      queue.clear()
    }
    sayStopped(error)
  }

  private func sayStopped(_ error: FFmpegError) {
    events?("\(name): \(output.endingNote(for: error)); this output has stopped")
  }

  /// Starts the queue with a late joiner's packets (the bus's last GOP), or makes it
  /// wait for the next keyframe when there are none.
  func join(with packets: [EncodedPacket], waitForKeyframe: Bool) {
    state.withLock { s in
      s.replayedFromSeconds = packets.first?.presentationSeconds
      for packet in packets { queue.append(packet) }
      if packets.isEmpty && waitForKeyframe { queue.waitForKeyframe() }
    }
    work.notify()
  }

  /// Tells the worker to end (`how`), and waits until it has. A live output given more
  /// than its `finishTimeout` to drain is interrupted.
  func end(_ how: Ending) {
    // A cancel cuts a live output's sending short at once, even while another caller
    // waits for it to drain.
    if how == .cancel && delivery.isLive { output.interrupt() }
    endingOnce.withLock { _ in endAndWait(how) }
  }

  private func endAndWait(_ how: Ending) {
    state.withLock { s in
      if s.ending == nil { s.ending = how }
    }
    work.notify()
    room.notify()
    // A live output gets its `finishTimeout` to send what is queued, then is cut short;
    // one that still does not return is left behind rather than hang the recording.
    if delivery.isLive, let limit = how == .drain ? output.finishTimeout : 0 {
      waitForWorker(seconds: limit)
      if !workerDone {
        output.interrupt()
        state.withLock { s in s.ending = .cancel }
        work.notify()
        waitForWorker(seconds: 2)
      }
      if !workerDone {
        state.withLock { s in s.report.error = "did not finish: the connection did not close" }
        worker?.detach()
        worker = nil
        return
      }
    }
    worker?.join()
    worker = nil
  }

  private func waitForWorker(seconds: Double) {
    let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
    while !workerDone && MonotonicClock.nanoseconds() < deadline {
      room.wait(timeoutNanoseconds: 50_000_000) { workerDone }
    }
  }

  /// Packets a file's queue gathers before its worker is woken, and how long its worker
  /// sleeps at most (ns) when fewer come.
  static let fileWakeBatch = 16
  static let fileWakeInterval = 100_000_000

  private let done = Atomic<Bool>(false)
  private var workerDone: Bool { done.load(ordering: .acquiring) }

  // MARK: The worker

  private func run() {
    defer {
      done.store(true, ordering: .releasing)
      room.notify()
    }
    var backoff = Backoff(first: 1, maximum: 30)
    var reconnecting = false
    // A server that never answered is not one that was lost.
    var everConnected = false
    while true {
      var ending: Ending? = nil
      let packet: EncodedPacket? = state.withLock { s in
        ending = s.ending
        if s.ending == .cancel && delivery.isLive { return nil }
        return queue.pop()
      }
      guard let packet else {
        if ending != nil { break }
        work.wait(timeoutNanoseconds: delivery.isLive ? 250_000_000 : Self.fileWakeInterval) {
          state.withLock { s in (delivery.isLive ? !queue.isEmpty : queue.count >= Self.fileWakeBatch) || s.ending != nil }
        }
        continue
      }
      room.notify()
      do throws(FFmpegError) {
        try output.write(packet)
        backoff.reset()
        everConnected = true
        updateFigures(connected: true)
        if reconnecting {
          reconnecting = false
          events?("\(name): connected again")
        }
      } catch {
        if output.reconnects && ending == nil {
          output.disconnect()
          state.withLock { s in
            queue.restartAtNextKeyframe()
            s.connected = false
          }
          updateFigures(connected: false)
          let wait = backoff.next()
          events?(
            "\(name): "
              + (reconnecting ? error.description : "\(everConnected ? "connection lost" : "cannot connect") (\(error.message))")
              + "; trying again in \(Int(wait)) s")
          reconnecting = true
          pause(seconds: wait)
          continue
        }
        endByItself(error, tellingTheWorker: false)
        output.cancel()
        updateFigures(connected: false)
        return
      }
    }
    let ending = state.withLock { $0.ending }
    if ending == .drain {
      do throws(FFmpegError) {
        try output.finish()
      } catch {
        state.withLock { s in s.failure = error }
        sayStopped(error)
      }
    } else {
      output.cancel()
    }
    state.withLock { s in
      s.ended = true
      queue.clear()
    }
    updateFigures(connected: false)
  }

  /// Copies the output's figures for other threads (on the worker).
  private func updateFigures(connected: Bool) {
    let report = output.report, bytes = output.bytesWritten, frames = output.videoPacketsWritten
    let end = output.videoEndSeconds, stop = output.stopRequest
    state.withLock { s in
      s.report = report
      s.bytes = bytes
      s.videoPackets = frames
      s.videoEnd = end
      s.stopRequest = stop
      s.connected = connected
    }
  }

  /// Waits `seconds`, or less when the worker is told to end.
  private func pause(seconds: Double) {
    let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < deadline && state.withLock({ $0.ending == nil }) {
      work.wait(timeoutNanoseconds: 250_000_000) { state.withLock { $0.ending != nil } }
    }
  }
}
