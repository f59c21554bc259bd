import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A real server or client that a live-output test talks to on loopback: nginx with
/// `libnginx-mod-rtmp`, `srt-live-transmit`. Started on a free port in the test's
/// directory and stopped by the test (and by `deinit`); `scripts/setup.sh --test`
/// installs them.
final class LocalServer {
  let process: Process
  let log: URL

  /// Starts `executable arguments...`, its stdout to `stdout` (or its log), and waits
  /// until `ready()` is true (a listening port, at most 10 s).
  init(_ executable: String, _ arguments: [String], in dir: URL, stdout: URL? = nil, ready: () -> Bool) throws {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw XCTSkip("\(executable) is not installed (bash scripts/setup.sh --test installs it)")
    }
    log = dir.appendingPathComponent((executable as NSString).lastPathComponent + "-\(UUID().uuidString.prefix(8)).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = dir
    process.standardInput = FileHandle.nullDevice
    let logHandle = try FileHandle(forWritingTo: log)
    if let stdout {
      _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
      process.standardOutput = try FileHandle(forWritingTo: stdout)
    } else {
      process.standardOutput = logHandle
    }
    process.standardError = logHandle
    try process.run()
    let deadline = Date().addingTimeInterval(10)
    while !ready() {
      guard process.isRunning, Date() < deadline else {
        stop()
        throw CLI.Failure(description: "\(executable) did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
      }
      usleep(20_000)
    }
  }

  /// Stops it with `signal` and waits until it has exited.
  func stop(signal: Int32 = SIGTERM) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(5)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  deinit { stop(signal: SIGKILL) }

  /// A TCP or UDP port on 127.0.0.1 that nothing listens on now.
  static func freePort(udp: Bool = false) throws -> Int {
    let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw CLI.Failure(description: "socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
        guard bind(fd, p, length) == 0 else { return -1 }
        return getsockname(fd, p, &length)
      }
    }
    guard bound == 0 else { throw CLI.Failure(description: "bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// True when something accepts TCP connections on 127.0.0.1:`port`.
  static func isListening(tcp port: Int) -> Bool {
    withLoopbackSocket(SOCK_STREAM, port: port) { fd, address, length in connect(fd, address, length) == 0 }
  }

  /// True when a UDP port on 127.0.0.1 is taken (an SRT listener has bound it).
  static func isBound(udp port: Int) -> Bool {
    withLoopbackSocket(SOCK_DGRAM, port: port) { fd, address, length in bind(fd, address, length) != 0 }
  }

  /// Calls `body` with a new socket of `type` and the address 127.0.0.1:`port`; false
  /// when no socket can be made.
  private static func withLoopbackSocket(
    _ type: __socket_type, port: Int, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
  ) -> Bool {
    let fd = socket(AF_INET, Int32(type.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
  }

}

/// nginx with the RTMP module on a free port, recording every stream it receives
/// (`record all`, a new FLV per publish) in `recordings`.
final class RTMPServer {
  let port: Int
  let root: URL
  let recordings: URL
  private var server: LocalServer?

  init(in dir: URL) throws {
    let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    guard FileManager.default.fileExists(atPath: module) else {
      throw XCTSkip("libnginx-mod-rtmp is not installed (bash scripts/setup.sh --test installs it)")
    }
    port = try LocalServer.freePort()
    root = dir.appendingPathComponent("nginx")
    recordings = root.appendingPathComponent("recordings")
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    // nginx's worker runs as nobody when started as root.
    chmod(root.path, 0o777)
    chmod(recordings.path, 0o777)
    let config = """
      load_module \(module);
      daemon off;
      master_process off;
      pid \(root.path)/nginx.pid;
      error_log \(root.path)/error.log info;
      events { worker_connections 64; }
      rtmp {
        server {
          listen 127.0.0.1:\(port);
          application live { live on; record all; record_path \(recordings.path); record_unique on; }
        }
      }
      """
    try config.write(to: root.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
    try start()
  }

  var url: String { "rtmp://127.0.0.1:\(port)/live/cam" }

  func start() throws {
    let port = port
    server = try LocalServer(
      "/usr/sbin/nginx", ["-p", root.path, "-c", root.appendingPathComponent("nginx.conf").path, "-e", "stderr"],
      in: root, ready: { LocalServer.isListening(tcp: port) })
  }

  func stop() { server?.stop() }

  /// The FLV files nginx recorded, oldest first.
  func recorded() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: recordings.path).filter { $0.hasSuffix(".flv") }.sorted()
      .map { recordings.appendingPathComponent($0).path }
  }
}
