/// Something that starts event clips: a signal (`SignalTrigger`), a request
/// (`RequestTrigger`: the preview server's `POST /event`), the motion detector
/// (`MotionTap`), or a program's own (a GPIO line, a door contact, a message from
/// elsewhere). One protocol for all of them, so that adding a kind is one type; a
/// recording starts each one it is given (`Configuration.triggers`, `addTrigger`) once
/// its event clips are ready, and stops it when the recording ends. One trigger may
/// serve several recordings (one signal for every camera): each starts and stops it
/// with its own recorder.
///
///     final class DoorContact: EventTrigger {
///       func start(firing events: EventRecorder) throws { watch { events.trigger("door") } }
///       func stop(firing events: EventRecorder) { … }
///     }
///     configuration.triggers = [DoorContact()]
///
/// A trigger calls `EventRecorder.trigger`, `release` or `stopEvent` from a thread of
/// its own; those return at once.
public protocol EventTrigger: AnyObject, Sendable {
  /// Starts firing into `events`, until `stop()`.
  /// - Throws: when the trigger cannot start (the recording then does not either).
  func start(firing events: EventRecorder) throws
  /// Stops firing into `events`; called once that recording has ended, or when it did
  /// not start.
  func stop(firing events: EventRecorder)
}
