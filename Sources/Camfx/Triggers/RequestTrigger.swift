import Synchronization

/// Event clips started and ended by requests from elsewhere, from any thread: the
/// preview server's `POST /event` (`?duration=3s`) and `POST /event/stop`, or a
/// program's own API. A request while no recording listens (before it runs, after it
/// ends) starts nothing and says so by returning `false`.
public final class RequestTrigger: EventTrigger, Sendable {
  /// What the clips it starts name as their trigger (`http`).
  public let name: String
  private let target = Mutex<EventRecorder?>(nil)

  public init(name: String = "http") {
    self.name = name
  }

  public func start(firing events: EventRecorder) throws { target.withLock { $0 = events } }

  public func stop(firing events: EventRecorder) {
    target.withLock { if $0 === events { $0 = nil } }
  }

  /// Starts an event, or extends the open one, lasting `duration` seconds from now
  /// (0: an instant, followed by the post-roll).
  /// - Returns: whether a recording took it.
  @discardableResult
  public func fire(duration: Double = 0) -> Bool {
    guard let events = target.withLock({ $0 }) else { return false }
    events.trigger(name, duration: duration)
    return true
  }

  /// Ends the open event: its post-roll starts now.
  /// - Returns: whether a recording took it.
  @discardableResult
  public func endEvent() -> Bool {
    guard let events = target.withLock({ $0 }) else { return false }
    events.stopEvent()
    return true
  }
}
