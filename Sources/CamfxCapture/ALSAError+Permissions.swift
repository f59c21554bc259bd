#if canImport(Glibc)
import Glibc
#endif

extension ALSAError {
  /// The error for a failed `snd_pcm_open`, telling a permission problem from a missing
  /// device: alsa-lib resolves a card name (`hw:Loopback,…`) by opening each card's
  /// control node, and when it may not open any it says "no such device" — for a user
  /// outside the `audio` group, that message sends them looking for the wrong problem.
  /// So a "no such device" while some sound node exists that this user may not open is
  /// reported as permission denied, naming the node's group.
  /// - Parameters:
  ///   - soundDirectory: where the card nodes are (`/dev/snd`).
  ///   - mayOpen: whether this user may open a node for reading and writing.
  package static func openFailure(
    code: Int32, device: String, soundDirectory: String = "/dev/snd",
    mayOpen: (String) -> Bool = { access($0, R_OK | W_OK) == 0 }
  ) -> ALSAError {
    let error = ALSAError(code: code, operation: "snd_pcm_open", device: device)
    guard error.kind == .noSuchDevice, let node = firstNodeDenied(in: soundDirectory, mayOpen: mayOpen) else {
      return error
    }
    return ALSAError(
      .permissionDenied(group: accessGroup(of: node)), code: -EACCES, operation: "snd_pcm_open", device: device,
      detail: "cannot open \(node)")
  }

  /// The first control or PCM node in `directory` that this user may not open.
  static func firstNodeDenied(in directory: String, mayOpen: (String) -> Bool) -> String? {
    guard let dir = opendir(directory) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name.hasPrefix("controlC") || name.hasPrefix("pcmC") { names.append(name) }
    }
    return names.sorted().lazy.map { "\(directory)/\($0)" }.first { !mayOpen($0) }
  }

  /// The group owning `path` (`audio` on Debian), or `audio` when it is root's or unknown.
  static func accessGroup(of path: String) -> String {
    var st = stat()
    guard stat(path, &st) == 0, st.st_gid != 0, let group = getgrgid(st.st_gid), let name = group.pointee.gr_name
    else { return "audio" }
    return String(cString: name)
  }
}
