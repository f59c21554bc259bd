import CamfxMQTT
import Foundation

/// The event clips told over MQTT (`--mqtt mqtt://host:1883/camfx/door`), under the
/// address's topic:
///
///     camfx/door/events     {"type":"start"|"update"|"end", "path":…, "trigger":…, …}  one per change
///     camfx/door/state      {"recording":true, "event":{…}}                          retained
///     camfx/door/available  online | offline                                         retained; offline is
///                                                                                    also the will
///
/// A subscriber that comes later reads the current state from the retained messages.
/// A broker that is down never stops the recording: the messages wait in the
/// publisher's bounded queue (`MQTTPublisher`).
final class EventMessages: Sendable {
  private let publisher: MQTTPublisher
  private let topic: String

  init(address: MQTTAddress, queueLimit: Int, report: @escaping @Sendable (String) -> Void) throws {
    topic = address.topic
    publisher = try MQTTPublisher(
      address: address, will: .init(topic: "\(address.topic)/available", payload: "offline", retain: true),
      birth: .init(topic: "\(address.topic)/available", payload: "online", retain: true),
      queueLimit: queueLimit, report: report)
    publisher.publish(topic: "\(topic)/state", payload: Self.json(State(recording: false, event: nil)), retain: true)
  }

  func started(_ event: EventRecorder.Event) { tell("start", event, recording: true) }
  func updated(_ event: EventRecorder.Event) { tell("update", event, recording: true) }
  func ended(_ event: EventRecorder.Event) { tell("end", event, recording: false) }

  /// Says camfx is going (`offline`), and sends what is queued.
  func close() {
    publisher.publish(topic: "\(topic)/available", payload: "offline", retain: true)
    publisher.close()
  }

  private func tell(_ type: String, _ event: EventRecorder.Event, recording: Bool) {
    publisher.publish(topic: "\(topic)/events", payload: Self.json(Change(type: type, event: event)))
    publisher.publish(topic: "\(topic)/state", payload: Self.json(State(recording: recording, event: event)), retain: true)
  }

  private struct Change: Encodable {
    var type: String
    var event: EventRecorder.Event
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(type, forKey: Key("type"))
      try event.encode(to: encoder)
    }
  }

  private struct State: Encodable {
    var recording: Bool
    var event: EventRecorder.Event?
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(recording, forKey: Key("recording"))
      try container.encode(event, forKey: Key("event"))
    }
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  private static func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}
