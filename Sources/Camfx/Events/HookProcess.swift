import CamfxCore
import Foundation

/// A hook's program, started in a process group of its own with nothing of camfx's but
/// its standard files, so that it and everything it starts can be waited for and
/// stopped together:
///
///     camfx ──posix_spawn──▶ sh -c '…'  (pgid = its pid; fds 0 = /dev/null, 1 = 2 = camfx's stderr)
///                              └─▶ sleep 15 &   (same group: stopped with it)
///
/// - Only descriptors 0, 1 and 2 are open in the program: a camera, a movie being
///   written, a socket of the preview server or of Foundation never leak into it (or
///   into what it leaves running), and nothing it holds keeps camfx waiting.
/// - Signal dispositions and the signal mask are reset to the defaults, whatever camfx
///   ignores or blocks (SIGPIPE; the stop signals).
/// - Nothing is read from it: its output goes to camfx's standard error directly.
///
/// Foundation's `Process` is not used: it hands the program a socket of its own, and
/// reports the program running until every process holding that socket (a child left
/// in the background) has ended.
final class HookProcess {
  /// The program's pid, which is also its process group's id.
  let pid: pid_t
  /// True once the program has ended and been reaped.
  private(set) var hasEnded = false
  /// Its wait status then (nil when something else reaped it).
  private(set) var waitStatus: Int32?

  /// Starts `arguments[0]` (a path) with `arguments` and `environment` ("NAME=value").
  /// - Throws: `HookProcess.SpawnError` with `posix_spawn`'s code.
  init(arguments: [String], environment: [String]) throws(SpawnError) {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    // What a hook prints goes with camfx's messages, never into `-o -`'s stream.
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
    Self.closeAllButStandardFiles(&actions)
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    var child = pid_t()
    let code = posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp)
    guard code == 0 else { throw SpawnError(program: arguments[0], code: code) }
    pid = child
  }

  /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Glibc's Swift module
  /// does not export (it is behind `_GNU_SOURCE`), looked up once in libc.
  private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
      unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }
  }()

  /// Closes every descriptor above 2 in the child: at once where glibc can, else those
  /// open now (`/proc/self/fd`; glibc ignores one closed meanwhile).
  private static func closeAllButStandardFiles(_ actions: inout posix_spawn_file_actions_t) {
    if let addCloseFrom, addCloseFrom(&actions, 3) == 0 { return }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in open.compactMap({ Int32($0) }) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
  }

  /// Reaps the program if it has ended, without waiting.
  /// - Returns: true once it has ended (and been reaped).
  @discardableResult
  func reap() -> Bool {
    if hasEnded { return true }
    var status: Int32 = 0
    while true {
      let r = waitpid(pid, &status, WNOHANG)
      if r == 0 { return false }
      if r < 0 && errno == EINTR { continue }
      // ECHILD: reaped elsewhere; it has ended, its status is unknown.
      waitStatus = r == pid ? status : nil
      hasEnded = true
      return true
    }
  }

  /// True while the program or anything it started in its group still runs (the
  /// program itself counts until it is reaped).
  ///
  /// A member that has ended stays in the group as a zombie until its parent reaps it;
  /// an orphan's parent is init, which in a container may never reap: a group of
  /// zombies has ended (`/proc/<pid>/stat` says which they are).
  var groupIsRunning: Bool {
    guard kill(-pid, 0) == 0 || errno == EPERM else { return false }
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return true }
    for entry in entries where entry.first?.isNumber == true {
      guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // "pid (name) state ppid pgrp …": the name may hold spaces and parentheses.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 2, fields[2] == "\(pid)", fields[0] != "Z" { return true }
    }
    return false
  }

  /// Waits until the program and its group have ended, or until `deadline`
  /// (`MonotonicClock.seconds()`).
  /// - Returns: true when they ended in time.
  func wait(until deadline: Double) -> Bool {
    while true {
      if reap() && !groupIsRunning { return true }
      if MonotonicClock.seconds() >= deadline { return false }
      MonotonicClock.sleep(seconds: 0.05)
    }
  }

  /// Stops the group: SIGTERM, then SIGKILL to what is left after `grace` seconds; the
  /// program is reaped.
  func stopGroup(grace: Double = 1) {
    kill(-pid, SIGTERM)
    if !wait(until: MonotonicClock.seconds() + grace) {
      kill(-pid, SIGKILL)
      // Killed processes end at once; only the program is ours to reap.
      while !reap() { MonotonicClock.sleep(seconds: 0.01) }
    }
  }

  /// `posix_spawn` failed.
  struct SpawnError: Error, CustomStringConvertible {
    let program: String
    let code: Int32
    var description: String { "cannot start \(program): \(String(cString: strerror(code))) (errno \(code))" }
  }
}
