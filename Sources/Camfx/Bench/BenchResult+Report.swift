extension Array where Element == BenchResult {
  /// The human-readable table `camfx bench` prints.
  ///
  ///     operation          size       frame     frames/s      GB/s   x memcpy
  ///     memcpy             1920x1080  hot         3216.0     26.67       1.00
  ///     memcpy             1920x1080  cold         905.6      7.51       1.00
  /// - Parameter nameWidth: the operation column's width (default: the longest name,
  ///   at least 18), for a table printed a row at a time.
  public func table(nameWidth: Int? = nil) -> String {
    let nameWidth = nameWidth ?? Swift.max(18, map(\.name.count).max() ?? 0)
    let header = [
      pad("operation", nameWidth), pad("size", 10), pad("frame", 5), pad("frames/s", 12, right: true), pad("GB/s", 9, right: true),
      pad("x memcpy", 10, right: true),
    ]
    var lines = [header.joined(separator: " ")]
    for r in self {
      lines.append([
        pad(r.name, nameWidth), pad(r.size.description, 10), pad(r.source.rawValue, 5), pad(fixed(r.framesPerSecond, 1), 12, right: true),
        pad(r.gigabytesPerSecond.map { fixed($0, 2) } ?? "-", 9, right: true), pad(r.ratioToMemcpy.map { fixed($0, 2) } ?? "-", 10, right: true),
      ].joined(separator: " "))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The same rows as JSON, for machines:
  /// `{"secondsPerCase": 0.5, "rows": [{"operation": "memcpy", "size": "1920x1080", ...}]}`.
  public func json(secondsPerCase: Double) -> String {
    let rows = map { r in
      var fields = [
        "\"operation\": \(quoted(r.name))", "\"size\": \(quoted(r.size.description))",
        "\"width\": \(r.size.width)", "\"height\": \(r.size.height)", "\"frame\": \(quoted(r.source.rawValue))",
        "\"bytesPerFrame\": \(r.bytesPerFrame)", "\"frames\": \(r.frames)",
        "\"framesPerSecond\": \(number(r.framesPerSecond))",
        "\"medianFramesPerSecond\": \(number(1 / r.medianSeconds))",
        "\"nanosecondsPerFrame\": \(number(r.bestSeconds * 1e9))",
        "\"gigabytesPerSecond\": \(r.gigabytesPerSecond.map(number) ?? "null")",
      ]
      fields.append("\"ratioToMemcpy\": \(r.ratioToMemcpy.map(number) ?? "null")")
      return "    {" + fields.joined(separator: ", ") + "}"
    }
    return "{\n  \"secondsPerCase\": \(number(secondsPerCase)),\n  \"rows\": [\n" + rows.joined(separator: ",\n") + "\n  ]\n}\n"
  }
}

/// `s` padded with spaces to `width`; numbers are right-aligned, text left-aligned.
private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
  let fill = String(repeating: " ", count: Swift.max(0, width - s.count))
  return right ? fill + s : s + fill
}

/// `value` with `digits` decimals, without Foundation's `String(format:)`.
private func fixed(_ value: Double, _ digits: Int) -> String {
  guard value.isFinite else { return "-" }
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let scaled = (value * scale).rounded()
  let whole = Int(scaled / scale)
  let fraction = Int(abs(scaled - Double(whole) * scale))
  let text = String(fraction)
  return digits == 0 ? String(whole) : "\(whole).\(String(repeating: "0", count: digits - text.count))\(text)"
}

private func number(_ value: Double) -> String {
  value.isFinite ? fixed(value, 4) : "null"
}

private func quoted(_ s: String) -> String {
  var out = "\""
  for ch in s.unicodeScalars {
    switch ch {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case _ where ch.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(ch.value, radix: 16).count) + String(ch.value, radix: 16)
    default: out.unicodeScalars.append(ch)
    }
  }
  return out + "\""
}
