import CMosquitto
import CamfxCore
import Foundation
import Synchronization

/// Publishes messages to an MQTT broker (libmosquitto), and goes on when the broker is
/// away: messages wait in a bounded queue and go out, in order, when it is back.
///
///     let mqtt = try MQTTPublisher(address: MQTTAddress("mqtt://127.0.0.1:1883/camfx/door"),
///                                  will: .init(topic: "camfx/door/available", payload: "offline"))
///     mqtt.publish(topic: "camfx/door/state", payload: json, retain: true)
///     ...
///     mqtt.close()   // sends what is queued (at most `closeTimeout`), then disconnects
///
/// - `publish` never blocks and never fails: the recording that calls it must not
///   wait for a broker. Messages are QoS 1 (at least once).
/// - A retained message replaces one for the same topic still in the queue: a
///   subscriber only ever needs the latest state.
/// - When the queue is full, the oldest message is dropped and counted (`dropped`).
/// - One thread (`camfx.mqtt`) alone calls libmosquitto: it connects, reconnects after
///   1, 2, 4 … 30 s, runs the network loop and hands queued messages over, at most
///   `inflightLimit` unacknowledged at once (libmosquitto sends those again itself after
///   a reconnect).
///
/// `close()` must be called: the thread holds the publisher until then.
///
/// `@unchecked Sendable`: `queue` is under its mutex; the libmosquitto handle and the
/// connection state belong to the worker thread (its callbacks run inside
/// `mosquitto_loop` on that thread).
public final class MQTTPublisher: @unchecked Sendable {
  public struct Message: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool

    public init(topic: String, payload: String, retain: Bool = false) {
      self.topic = topic
      self.payload = Array(payload.utf8)
      self.retain = retain
    }
  }

  public let address: MQTTAddress
  /// The most messages kept while the broker is away.
  public let queueLimit: Int
  /// How long `close` waits for queued messages to reach a connected broker.
  public let closeTimeout: Double
  private let report: @Sendable (String) -> Void
  private let birth: Message?
  private let inflightLimit = 20

  private struct Queue {
    var messages: [Message] = []
    var dropped = 0
    var published = 0
    var closing = false
    var connected = false
  }
  private let queue = Mutex(Queue())
  private let wake = WakeSignal()
  private var worker: NamedThread?

  // The worker thread's own.
  private var mosq: OpaquePointer?
  private var connected = false
  private var inflight = 0
  private var retryDelay = 1.0
  private var nextAttempt = 0.0
  private var hasConnected = false
  private var lastProblem: String?
  /// The broker refused the last attempt (already reported): the loss that follows is
  /// not reported again.
  private var refused = false
  /// Messages dropped because the broker rejects them (too large, a bad topic).
  private var rejectedReported = false

  /// Messages handed to the broker so far (acknowledged).
  public var published: Int { queue.withLock { $0.published } }
  /// Messages dropped because the queue was full while the broker was away.
  public var dropped: Int { queue.withLock { $0.dropped } }
  /// True while connected to the broker.
  public var isConnected: Bool { queue.withLock { $0.connected } }

  /// Starts connecting (in the background: a broker that is down is not an error).
  /// - Parameters:
  ///   - will: what the broker publishes if camfx goes away without closing (its
  ///     availability: `offline`), retained.
  ///   - birth: published first on every connection, before anything queued (its
  ///     availability again: `online`, which replaces a will the broker published
  ///     while the connection was down).
  ///   - report: told, one line each, when the broker cannot be reached, refuses, or
  ///     is back.
  /// - Throws: `MQTTError` when libmosquitto cannot make a client at all.
  public init(
    address: MQTTAddress, clientID: String? = nil, will: Message? = nil, birth: Message? = nil, queueLimit: Int = 1000,
    closeTimeout: Double = 2, report: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    self.address = address
    self.birth = birth
    self.queueLimit = max(1, queueLimit)
    self.closeTimeout = closeTimeout
    self.report = report
    Self.initializeLibrary
    let id = clientID ?? "camfx-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    guard let mosq = mosquitto_new(id, true, Unmanaged.passUnretained(self).toOpaque()) else {
      throw MQTTError(operation: "mosquitto_new", code: Int32(MOSQ_ERR_NOMEM.rawValue))
    }
    self.mosq = mosq
    do {
      try MQTTError.check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "protocol version")
      if let username = address.username {
        try MQTTError.check(mosquitto_username_pw_set(mosq, username, address.password), "mosquitto_username_pw_set")
      }
      if let will {
        try MQTTError.check(
          will.payload.withUnsafeBytes { mosquitto_will_set(mosq, will.topic, Int32($0.count), $0.baseAddress, 1, will.retain) },
          "mosquitto_will_set")
      }
      try MQTTError.check(mosquitto_max_inflight_messages_set(mosq, UInt32(inflightLimit)), "max inflight")
    } catch {
      mosquitto_destroy(mosq)
      self.mosq = nil
      throw error
    }
    mosquitto_connect_callback_set(mosq) { _, object, code in
      guard let object else { return }
      Unmanaged<MQTTPublisher>.fromOpaque(object).takeUnretainedValue().connected(code: code)
    }
    mosquitto_disconnect_callback_set(mosq) { _, object, code in
      guard let object else { return }
      Unmanaged<MQTTPublisher>.fromOpaque(object).takeUnretainedValue().disconnected(code: code)
    }
    mosquitto_publish_callback_set(mosq) { _, object, _ in
      guard let object else { return }
      Unmanaged<MQTTPublisher>.fromOpaque(object).takeUnretainedValue().acknowledged()
    }
    do {
      worker = try NamedThread("camfx.mqtt") { [self] in run() }
    } catch {
      mosquitto_destroy(mosq)
      self.mosq = nil
      throw error
    }
  }

  /// Queues a message; it goes out as soon as the broker is there.
  public func publish(_ message: Message) {
    var droppedFirst = false
    queue.withLock { q in
      guard !q.closing else { return }
      if message.retain, let index = q.messages.lastIndex(where: { $0.retain && $0.topic == message.topic }) {
        q.messages.remove(at: index)
      }
      if q.messages.count >= queueLimit {
        q.messages.removeFirst()
        q.dropped += 1
        droppedFirst = q.dropped == 1
      }
      q.messages.append(message)
    }
    if droppedFirst {
      report("warning: MQTT \(address): the broker has been away for \(queueLimit) messages; the oldest are dropped")
    }
    wake.notify()
  }

  public func publish(topic: String, payload: String, retain: Bool = false) {
    publish(Message(topic: topic, payload: payload, retain: retain))
  }

  /// Sends what is queued (for at most `closeTimeout` if connected), disconnects and
  /// stops the thread. Called again, does nothing.
  public func close() {
    let first = queue.withLock { q -> Bool in
      defer { q.closing = true }
      return !q.closing
    }
    guard first else { return }
    wake.notify()
    worker?.join()
    worker = nil
  }

  // MARK: The worker thread

  private static let initializeLibrary: Void = { _ = mosquitto_lib_init() }()

  private func run() {
    guard let mosq else { return }
    var closingSince: Double? = nil
    while true {
      let now = MonotonicClock.seconds()
      let (closing, waiting) = queue.withLock { ($0.closing, $0.messages.count) }
      if closing {
        closingSince = closingSince ?? now
        let done = waiting == 0 && inflight == 0
        if done || !connected || now - closingSince! >= closeTimeout { break }
      }
      if !connected && mosquitto_socket(mosq) < 0 {
        if now >= nextAttempt { attemptConnection(now: now) }
        if mosquitto_socket(mosq) < 0 {
          wake.wait(timeoutNanoseconds: 50_000_000) { queue.withLock { $0.closing } }
          continue
        }
      }
      if connected { handOver() }
      let code = mosquitto_loop(mosq, 50, 1)
      if code != MOSQ_ERR_SUCCESS.rawValue {
        lost(reason: Self.describe(code))
      }
    }
    if connected {
      connected = false  // the disconnect callback then knows this is no loss
      mosquitto_disconnect(mosq)
      for _ in 0..<10 where mosquitto_socket(mosq) >= 0 { _ = mosquitto_loop(mosq, 20, 1) }
    }
    mosquitto_destroy(mosq)
    self.mosq = nil
    // What the broker never took is said, not dropped in silence: the warning at the
    // outage promised to keep it.
    let undelivered = queue.withLock { q in
      q.connected = false
      defer { q.messages.removeAll() }
      return q.messages.count
    }
    if undelivered > 0 {
      report("warning: MQTT \(address): \(undelivered) message(s) not delivered: the broker was away when camfx ended")
    }
  }

  /// `mosquitto_connect_async` with our own `mosquitto_loop` calls rather than
  /// `mosquitto_loop_start`'s thread: libmosquitto 2.0 connects without blocking on
  /// the socket either way, and one thread of ours owns the handle, its queue and the
  /// back-off. Resolving the host name does block (a broker named in /etc/hosts or by
  /// address does not wait).
  private func attemptConnection(now: Double) {
    guard let mosq else { return }
    let code = hasAttempted
      ? mosquitto_reconnect_async(mosq)
      : mosquitto_connect_async(mosq, address.host, Int32(address.port), 30)
    hasAttempted = true
    if code != MOSQ_ERR_SUCCESS.rawValue {
      lost(reason: Self.describe(code))
    }
  }
  private var hasAttempted = false

  /// The connection failed or ended: report it once per outage, and try again later.
  private func lost(reason: String) {
    let wasConnected = connected
    connected = false
    queue.withLock { $0.connected = false }
    if let mosq, mosquitto_socket(mosq) >= 0 { mosquitto_disconnect(mosq) }
    if refused {
      // The refusal said why, and stays the problem to compare the next one with.
      refused = false
    } else {
      if wasConnected || lastProblem != reason {
        report(
          "warning: MQTT \(address): \(wasConnected ? "connection lost" : "cannot connect") (\(reason)); "
            + "trying again in \(Int(retryDelay)) s, messages are kept")
      }
      lastProblem = reason
    }
    nextAttempt = MonotonicClock.seconds() + retryDelay
    retryDelay = min(retryDelay * 2, 30)
  }

  /// Hands queued messages to libmosquitto while fewer than `inflightLimit` wait for
  /// their acknowledgement.
  private func handOver() {
    guard let mosq else { return }
    while inflight < inflightLimit {
      guard let message = queue.withLock({ $0.messages.isEmpty ? nil : $0.messages.removeFirst() }) else { return }
      let code = message.payload.withUnsafeBytes {
        mosquitto_publish(mosq, nil, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain)
      }
      if code == MOSQ_ERR_SUCCESS.rawValue {
        inflight += 1
        continue
      }
      if Self.rejectsTheMessage(code) {
        // This message can never go (too large, a topic the broker cannot take): drop it
        // rather than hold up the ones behind it.
        queue.withLock { $0.dropped += 1 }
        if !rejectedReported {
          rejectedReported = true
          report("warning: MQTT \(address): a message to '\(message.topic)' was dropped: \(Self.describe(code))")
        }
        continue
      }
      queue.withLock { $0.messages.insert(message, at: 0) }
      lost(reason: Self.describe(code))
      return
    }
  }

  /// Codes that say the message itself is wrong, not the connection.
  private static func rejectsTheMessage(_ code: Int32) -> Bool {
    [MOSQ_ERR_INVAL, MOSQ_ERR_MALFORMED_UTF8, MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_OVERSIZE_PACKET, MOSQ_ERR_QOS_NOT_SUPPORTED]
      .contains { $0.rawValue == code }
  }

  // The callbacks, on the worker thread inside mosquitto_loop.

  private func connected(code: Int32) {
    guard code == 0 else {
      let reason = String(cString: mosquitto_connack_string(code))
      if lastProblem != reason {
        report("warning: MQTT \(address): the broker refused the connection (\(reason)); trying again in \(Int(retryDelay)) s")
      }
      lastProblem = reason
      refused = true
      return
    }
    if lastProblem != nil { report("MQTT \(address): connected again") }
    lastProblem = nil
    connected = true
    hasConnected = true
    retryDelay = 1
    if let birth, let mosq {
      let code = birth.payload.withUnsafeBytes {
        mosquitto_publish(mosq, nil, birth.topic, Int32($0.count), $0.baseAddress, 1, birth.retain)
      }
      if code == MOSQ_ERR_SUCCESS.rawValue { inflight += 1 }
    }
    // Messages in flight when the connection went are sent again by libmosquitto.
    queue.withLock { $0.connected = true }
  }

  private func disconnected(code: Int32) {
    guard connected else { return }
    lost(reason: code == 0 ? "disconnected" : Self.describe(code))
  }

  private func acknowledged() {
    inflight = max(0, inflight - 1)
    queue.withLock { $0.published += 1 }
  }

  private static func describe(_ code: Int32) -> String {
    if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
    return String(cString: mosquitto_strerror(code))
  }
}

/// A libmosquitto call failed: the operation and its code (`mosquitto_strerror`).
public struct MQTTError: Error, CustomStringConvertible, Sendable {
  public let operation: String
  public let code: Int32
  public var description: String { "\(operation): \(String(cString: mosquitto_strerror(code)))" }

  static func check(_ code: Int32, _ operation: String) throws(MQTTError) {
    guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(operation: operation, code: code) }
  }
}
