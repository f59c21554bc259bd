import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking WebSocket client (RFC 6455) on a plain TCP socket to 127.0.0.1, for the
/// live view's tests and the DevTools protocol: the handshake, masked frames out,
/// whole messages in (continuations joined, pings answered). It reads only when asked,
/// so a test can leave it unread to play a stalled viewer.
final class TestWebSocket {
  enum Message: Equatable {
    case text(String)
    case binary([UInt8])
    case close(code: UInt16?)
  }

  /// The server answered the upgrade with something else than 101.
  struct HandshakeError: Error, CustomStringConvertible {
    let status: Int
    let head: String
    var description: String { "WebSocket handshake answered \(status): \(head)" }
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private let fd: Int32
  private var buffer: [UInt8] = []
  private var closed = false

  /// Connects and upgrades.
  /// - Parameters:
  ///   - headers: more request headers (`Origin`, `Authorization`).
  ///   - receiveBufferBytes: the socket's receive buffer (set before connecting), for
  ///     a client whose stall shows at the server quickly.
  init(port: Int, path: String, headers: [String: String] = [:], receiveBufferBytes: Int? = nil, timeout: Double = 10) throws {
    fd = try HTTPProbe.connect(port: port, receiveBufferBytes: receiveBufferBytes)
    let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    do {
      try send(Array(request.utf8))
      let deadline = Date().addingTimeInterval(timeout)
      var headEnd: Int?
      while headEnd == nil {
        try fill(deadline: deadline)
        headEnd = buffer.indices.dropLast(3).first {
          buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
        }
      }
      let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
      buffer.removeFirst(headEnd! + 4)
      let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      guard status == 101 else { throw HandshakeError(status: status, head: head) }
      let accept = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-accept:") }
        .map { $0.dropFirst("sec-websocket-accept:".count).trimmingCharacters(in: .whitespaces) }
      let expected = Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
      guard accept == expected else { throw Failure(description: "Sec-WebSocket-Accept \(accept ?? "missing"), expected \(expected)") }
    } catch {
      Glibc.close(fd)
      throw error
    }
  }

  deinit { close() }

  /// The next whole message; pings on the way are answered.
  /// - Throws: `Failure` when none comes by `deadline` or the connection ends.
  func readMessage(deadline: Date) throws -> Message {
    var opcode: UInt8 = 0
    var payload: [UInt8] = []
    while true {
      let (fin, frameOpcode, data) = try readFrame(deadline: deadline)
      switch frameOpcode {
      case 0x9:
        try sendFrame(opcode: 0xA, data)
        continue
      case 0xA:
        continue
      case 0x8:
        let code = data.count >= 2 ? UInt16(data[0]) << 8 | UInt16(data[1]) : nil
        return .close(code: code)
      case 0x0:
        payload += data
      default:
        opcode = frameOpcode
        payload = data
      }
      guard fin else { continue }
      return opcode == 0x1 ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
    }
  }

  func sendText(_ text: String) throws { try sendFrame(opcode: 0x1, Array(text.utf8)) }
  func sendBinary(_ bytes: [UInt8]) throws { try sendFrame(opcode: 0x2, bytes) }

  /// Sends a close frame (if it can) and closes the socket.
  func close() {
    guard !closed else { return }
    try? sendFrame(opcode: 0x8, [0x03, 0xE8])
    closed = true
    Glibc.close(fd)
  }

  private func readFrame(deadline: Date) throws -> (fin: Bool, opcode: UInt8, data: [UInt8]) {
    try need(2, deadline: deadline)
    let fin = buffer[0] & 0x80 != 0
    let opcode = buffer[0] & 0x0F
    let masked = buffer[1] & 0x80 != 0
    var length = Int(buffer[1] & 0x7F)
    var at = 2
    if length == 126 {
      try need(4, deadline: deadline)
      length = Int(buffer[2]) << 8 | Int(buffer[3])
      at = 4
    } else if length == 127 {
      try need(10, deadline: deadline)
      length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
      at = 10
    }
    let maskAt = at
    if masked { at += 4 }
    try need(at + length, deadline: deadline)
    var data = Array(buffer[at..<at + length])
    if masked { for i in data.indices { data[i] ^= buffer[maskAt + i % 4] } }
    buffer.removeFirst(at + length)
    return (fin, opcode, data)
  }

  private func need(_ count: Int, deadline: Date) throws {
    while buffer.count < count { try fill(deadline: deadline) }
  }

  /// Reads what the socket has, waiting until `deadline` for something.
  private func fill(deadline: Date) throws {
    let wait = deadline.timeIntervalSinceNow
    guard wait > 0 else { throw Failure(description: "nothing came in time") }
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, Int32(min(wait, 3600) * 1000) + 1) > 0 else { throw Failure(description: "nothing came in time") }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let n = recv(fd, &chunk, chunk.count, 0)
    guard n > 0 else { throw Failure(description: "the server closed the connection") }
    buffer += chunk[0..<n]
  }

  private func sendFrame(opcode: UInt8, _ data: [UInt8]) throws {
    var frame: [UInt8] = [0x80 | opcode]
    if data.count < 126 {
      frame.append(0x80 | UInt8(data.count))
    } else if data.count < 65536 {
      frame += [0x80 | 126, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
    } else {
      frame.append(0x80 | 127)
      frame += (0..<8).reversed().map { UInt8((data.count >> ($0 * 8)) & 0xFF) }
    }
    let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
    frame += mask
    frame += data.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    try send(frame)
  }

  private func send(_ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
      sent += n
    }
  }
}

/// SHA-1 (FIPS 180-4), for the handshake's `Sec-WebSocket-Accept`: Foundation on Linux
/// has no digest of its own.
enum SHA1 {
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    var bytes = message + [0x80]
    while bytes.count % 64 != 56 { bytes.append(0) }
    let bits = UInt64(message.count) * 8
    bytes += (0..<8).reversed().map { UInt8((bits >> (UInt64($0) * 8)) & 0xFF) }
    for block in stride(from: 0, to: bytes.count, by: 64) {
      var w = (0..<16).map { i in
        bytes[block + 4 * i..<block + 4 * i + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      }
      for i in 16..<80 {
        let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
        w.append(x << 1 | x >> 31)
      }
      var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
      for i in 0..<80 {
        let (f, k): (UInt32, UInt32) =
          switch i {
          case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
          case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
          case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
          default: (b ^ c ^ d, 0xCA62_C1D6)
          }
        let t = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
        (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, t)
      }
      h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
    }
    return h.flatMap { v in (0..<4).reversed().map { UInt8((v >> (UInt32($0) * 8)) & 0xFF) } }
  }
}
