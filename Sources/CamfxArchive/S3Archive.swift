import Camfx
import CamfxCore
import Foundation
import Synchronization

/// Uploads finished files to S3-compatible object storage (`--archive s3://…`) on a
/// thread of its own, never holding up a recording.
///
/// - What waits is in a journal on the disk (`ArchiveJournal`), written before the
///   upload starts and after each confirmed part, so a crash or a reboot resumes where
///   it stopped: a multipart upload goes on from its last part the store still holds,
///   or starts again cleanly (uploads of the same key that the journal does not know,
///   left by a crash before it could note them, are aborted first).
/// - A file counts as archived only when the store confirmed it: every request body
///   carries its `Content-MD5`, which the store checks, and the object's size (and its
///   ETag, when the store names objects by their MD5) matches the local file.
/// - A store that is down, slow or refusing gets retries with back-off (1 s doubling to
///   a minute) and one line when the outage begins and one when it ends.
/// - `keepLocal` deletes archived movie files (and their archived sidecars and
///   pictures) beyond the newest N.
public final class S3Archive: FileArchive, @unchecked Sendable {
  public struct Options: Sendable {
    public var destination: ArchiveDestination
    public var credentials: ArchiveCredentials
    /// The folder keys are named relative to, and where the journal lives.
    public var folder: String
    /// Keep only the newest N archived movie files on the disk.
    public var keepLocal: Int?
    /// Files from this size on go up in parts.
    public var multipartThreshold: Int64 = 64 << 20
    /// Files uploaded at once, each on a connection and a thread of its own.
    public var uploads = 4
    /// The smallest part; larger for files that would need more than 10,000 parts
    /// (S3's limit), so a file of any size a camera writes fits.
    public var partSize: Int64 = 16 << 20
    public init(destination: ArchiveDestination, credentials: ArchiveCredentials, folder: String) {
      self.destination = destination
      self.credentials = credentials
      self.folder = folder
    }
  }

  public let options: Options
  /// Asks the store for the bucket at the start.
  private let client: S3Client
  private let report: @Sendable (String) -> Void

  private struct State {
    var journal: ArchiveJournal
    /// Paths handed over since the uploader last saved the journal.
    var added: [String] = []
    var stopping = false
    /// Wall clock until which `finish` lets the uploads go on.
    var deadline: Double = .infinity
    var archivedFiles = 0
    var archivedBytes: Int64 = 0
    var lost: [String] = []
    var outage: String?
    /// When the store stopped answering, while it does not.
    var outageStart: Double?
    /// Files a worker has taken (uploading, or waiting to retry after the store failed).
    var inProgress: Set<String> = []
    /// Files an upload is reading now, through a descriptor that reads them even once
    /// they are deleted.
    var reading: Set<String> = []
    /// Why each file `reading` holds was deleted meanwhile: lost if its upload fails.
    var deletedWhileRead: [String: String] = [:]
    /// The journal changed on a thread that must not write it (a file deleted before it
    /// was archived): a worker saves it.
    var journalChanged = false
    /// Base paths (no extension) whose movie `keepLocal` deleted: their sidecars and
    /// pictures go too once they are archived.
    var removedBases: Set<String> = []
  }
  private let state: Mutex<State>
  private let wake = WakeSignal()
  private let cancelled = Atomic<Bool>(false)
  private var workers: [NamedThread] = []
  private let workersEnded = Atomic<Int>(0)
  /// One journal write at a time (off the state's lock, which `add` takes).
  private let saving = Mutex<Void>(())

  /// Reads the journal and starts the uploader (which begins with what the journal
  /// lists).
  /// - Throws: `ArchiveError` for a folder or journal that cannot be used.
  public init(options: Options, report: @escaping @Sendable (String) -> Void) throws {
    var options = options
    options.folder = Self.absolute(options.folder)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: options.folder, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw ArchiveError("the archive's folder '\(options.folder)' is not a directory")
    }
    self.options = options
    self.report = report
    client = S3Client(destination: options.destination, credentials: options.credentials)
    let journal = try ArchiveJournal.load(folder: options.folder, destination: options.destination.url)
    state = Mutex(State(journal: journal))
    client.isCancelled = { [weak self] in self?.cancelled.load(ordering: .relaxed) ?? true }
  }

  /// Asks the store for the bucket, signed: wrong keys, a missing bucket or a clock
  /// the store refuses show now.
  /// - Throws: `ArchiveError`, one line.
  public func checkStore() throws(ArchiveError) {
    let store = options.destination.endpoint ?? "AWS S3 (\(options.destination.region))"
    do {
      try client.headBucket()
    } catch {
      let why =
        switch error.status {
        case 404: "no bucket '\(options.destination.bucket)' at \(store)"
        case 403: "\(store) refused the key (HTTP 403): a wrong access key or secret key (from \(options.credentials.origin)), or one without access to the bucket"
        case 400: "\(store) refused the request (HTTP 400): is this machine's clock right, and --archive-region the bucket's?"
        case nil: "cannot reach \(store): \(error.description) (--archive-lazy records anyway, and uploads once it answers)"
        default: error.description
        }
      throw ArchiveError("--archive \(options.destination.url): \(why)")
    }
  }

  /// Starts uploading (the journal's files first).
  public func start() throws {
    for _ in 0..<max(1, options.uploads) {
      let worker = Worker(client: S3Client(destination: options.destination, credentials: options.credentials))
      worker.client.isCancelled = { [weak self] in self?.cancelled.load(ordering: .relaxed) ?? true }
      workers.append(try NamedThread("camfx.archive") { [self] in run(worker) })
    }
  }

  // MARK: FileArchive

  public func add(_ path: String) {
    state.withLock { $0.added.append(path) }
    wake.notify()
  }

  public func isArchived(_ path: String) -> Bool {
    let absolute = Self.absolute(path)
    return state.withLock { s in s.journal.entries.contains { $0.path == absolute && $0.archived } }
  }

  public func deletedUnarchived(_ path: String, reason: String) {
    let absolute = Self.absolute(path)
    let lost = state.withLock { s -> Bool in
      // Decided under the lock the uploads take: a file archived since the caller looked
      // is not lost, and one an upload is reading goes on being read, so that upload's
      // end decides.
      if s.journal.entries.contains(where: { $0.path == absolute && $0.archived }) { return false }
      if s.reading.contains(absolute) {
        s.deletedWhileRead[absolute] = reason
        return false
      }
      guard Self.forget(absolute, in: &s) else { return false }
      s.journalChanged = true
      return true
    }
    guard lost else { return }
    reportDeleted(path, reason: reason)
    wake.notify()
  }

  /// Takes a deleted file out of the journal and counts it lost, once.
  /// - Returns: false when it was out already (counted by whoever took it out).
  private static func forget(_ absolute: String, in s: inout State) -> Bool {
    let entries = s.journal.entries.count, added = s.added.count
    s.journal.entries.removeAll { $0.path == absolute }
    s.added.removeAll { Self.absolute($0) == absolute }
    guard s.journal.entries.count < entries || s.added.count < added else { return false }
    s.lost.append(absolute)
    return true
  }

  private func reportDeleted(_ path: String, reason: String) {
    report("warning: '\(path)' was deleted before it was archived: \(reason)")
  }

  public var backlog: ArchiveBacklog {
    let now = Date().timeIntervalSince1970
    return state.withLock { s in
      let waiting = s.journal.entries.filter { !$0.archived }
      var b = ArchiveBacklog(destination: options.destination.url)
      b.files = waiting.count + s.added.count
      b.bytes = waiting.reduce(0) { $0 + $1.size } + s.added.reduce(Int64(0)) { $0 + Self.size(of: $1) }
      if let oldest = waiting.map(\.added).min() { b.oldestWaitingSeconds = max(0, now - oldest) }
      b.archivedFiles = s.archivedFiles
      b.archivedBytes = s.archivedBytes
      b.lostFiles = s.lost
      b.outage = s.outage
      return b
    }
  }

  /// Lets the uploads go on for at most `seconds` (until nothing waits), then stops the
  /// uploader; what is left stays in the journal for the next run or `camfx archive`.
  /// - Returns: the backlog left.
  @discardableResult
  public func finish(waitingAtMost seconds: Double) -> ArchiveBacklog {
    state.withLock { s in
      s.stopping = true
      s.deadline = Date().timeIntervalSince1970 + seconds
    }
    wake.notify()
    // The workers see the deadline between requests; a request in flight at the
    // deadline is cut off (`isCancelled`).
    while workersEnded.load(ordering: .acquiring) < workers.count {
      if Date().timeIntervalSince1970 > state.withLock({ $0.deadline }) { cancelled.store(true, ordering: .relaxed) }
      wake.notify()
      usleep(20_000)
    }
    for worker in workers { worker.join() }
    workers = []
    return backlog
  }

  /// Ends the uploads now (a signal): the request in flight is cut off, and what is
  /// left stays in the journal.
  public func stopSoon() {
    state.withLock { s in
      s.stopping = true
      s.deadline = min(s.deadline, Date().timeIntervalSince1970)
    }
    cancelled.store(true, ordering: .relaxed)
    wake.notify()
  }

  // MARK: The uploader

  /// One upload thread's own: its connection, and a buffer the MD5 of a body is read
  /// through before the body is sent (the bodies themselves are read as they go).
  final class Worker: @unchecked Sendable {
    let client: S3Client
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
    init(client: S3Client) { self.client = client }
    deinit { buffer.deallocate() }

    /// The MD5 of `count` bytes of the file from `offset`.
    func md5(fd: Int32, offset: Int64, count: Int64) throws -> [UInt8] {
      let digest = MD5Digest()
      var done: Int64 = 0
      while done < count {
        let n = pread(fd, buffer.baseAddress!, Int(min(Int64(buffer.count), count - done)), off_t(offset + done))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
          throw ArchiveUploadFailure.gone("cannot be read: \(n == 0 ? "shorter than it was" : String(cString: strerror(errno)))")
        }
        digest.update(UnsafeRawBufferPointer(start: buffer.baseAddress, count: n))
        done += Int64(n)
      }
      return digest.finish()
    }
  }

  /// A worker: takes the oldest waiting file no other worker has, until the end.
  private func run(_ worker: Worker) {
    defer { workersEnded.add(1, ordering: .releasing) }
    var failures = 0
    while true {
      takeAdded()
      // Past `finish`'s deadline nothing more is taken. A file taken counts as read from
      // then on: one deleted before its upload opens it is that upload's to say lost.
      let (next, stopping, pastDeadline) = state.withLock { s -> (ArchiveJournal.Entry?, Bool, Bool) in
        if Date().timeIntervalSince1970 > s.deadline { return (nil, s.stopping, true) }
        let entry = s.journal.entries.first { !$0.archived && !s.inProgress.contains($0.path) }
        if let entry {
          s.inProgress.insert(entry.path)
          s.reading.insert(entry.path)
        }
        return (entry, s.stopping, false)
      }
      if pastDeadline { return }
      guard let entry = next else {
        if stopping && state.withLock({ $0.added.isEmpty && $0.inProgress.isEmpty }) { return }
        // Until a file is handed over, or (at the end) the other workers are done.
        wake.wait(timeoutNanoseconds: 1_000_000_000) {
          state.withLock { !$0.added.isEmpty || ($0.stopping && $0.inProgress.isEmpty) }
        }
        continue
      }
      defer {
        state.withLock { _ = $0.inProgress.remove(entry.path) }
        wake.notify()
      }
      do throws(ArchiveUploadFailure) {
        do {
          try upload(entry, with: worker)
        } catch {
          // Deleted while this upload read it (`--min-free`), and the upload failed: lost,
          // for the deletion's reason. A store that failed is an outage all the same.
          if let reason = endReading(entry.path, failed: true) {
            saveJournal()
            reportDeleted(entry.path, reason: reason)
            if case .gone = error { continue }
          }
          throw error
        }
        _ = endReading(entry.path, failed: false)
        let outageStart = state.withLock { s -> Double? in
          defer {
            s.outageStart = nil
            s.outage = nil
          }
          return s.outageStart
        }
        if let start = outageStart {
          let waiting = backlog
          report(
            "archive: \(options.destination.url) answers again after \(Int((Date().timeIntervalSince1970 - start).rounded())) s; "
              + "\(waiting.files) file(s) (\(RecordingStatusLine.bytes(waiting.bytes))) wait")
        }
        failures = 0
      } catch {
        // Cut off by the end (`finish`'s deadline, `stopSoon`): not an outage.
        if cancelled.load(ordering: .relaxed) { return }
        switch error {
        case .gone(let why):
          // Unless `deletedUnarchived` counted it already.
          guard state.withLock({ Self.forget(entry.path, in: &$0) }) else { continue }
          saveJournal()
          report("warning: archive: '\(entry.path)' \(why); it was not archived")
        case .store(let failure):
          failures += 1
          // One line per outage, from whichever worker saw it first.
          let began = state.withLock { s -> Bool in
            s.outage = failure.description
            guard s.outageStart == nil else { return false }
            s.outageStart = Date().timeIntervalSince1970
            return true
          }
          if began {
            let waiting = backlog
            report(
              "archive: \(options.destination.url): \(failure.description); \(waiting.files) file(s) "
                + "(\(RecordingStatusLine.bytes(waiting.bytes))) wait, retrying")
          }
          // 1 s doubling to a minute; woken early only by the end's deadline.
          let delay = min(60.0, pow(2.0, Double(min(failures - 1, 6))))
          let until = Date().timeIntervalSince1970 + delay
          while Date().timeIntervalSince1970 < until {
            let (stop, deadline) = state.withLock { ($0.stopping, $0.deadline) }
            if stop && Date().timeIntervalSince1970 > deadline { return }
            wake.wait(timeoutNanoseconds: 100_000_000) { false }
            takeAdded()
          }
        }
      }
    }
  }

  /// An upload of `path` has ended: it is no longer read.
  /// - Returns: why it was deleted meanwhile, when it was and the upload `failed` (it is
  ///   then counted lost).
  private func endReading(_ path: String, failed: Bool) -> String? {
    state.withLock { s -> String? in
      s.reading.remove(path)
      guard let reason = s.deletedWhileRead.removeValue(forKey: path), failed, Self.forget(path, in: &s) else { return nil }
      return reason
    }
  }

  /// Notes the files handed over since the last look in the journal, before anything
  /// of them is uploaded, and saves the journal if they or a deletion changed it.
  private func takeAdded() {
    let now = Date().timeIntervalSince1970
    let changed = state.withLock { s -> Bool in
      defer { s.journalChanged = false }
      guard !s.added.isEmpty else { return s.journalChanged }
      for path in s.added {
        let absolute = Self.absolute(path)
        let name = Self.relativeName(absolute, in: options.folder)
        let entry = ArchiveJournal.Entry(
          path: absolute, key: options.destination.key(forName: name, at: time(nil)), size: Self.size(of: absolute),
          added: now, archived: false, upload: nil)
        // A file handed over again (rewritten in place) starts again.
        s.journal.entries.removeAll { $0.path == absolute }
        s.journal.entries.append(entry)
      }
      s.added = []
      return true
    }
    if changed { saveJournal() }
  }

  private func saveJournal() {
    saving.withLock { _ in saveJournalNow() }
  }

  private func saveJournalNow() {
    let snapshot = state.withLock { s -> ArchiveJournal in
      // Archived files no longer on the disk need no entry; the newest 2,000 archived
      // are kept for loop recording's questions.
      var kept: [ArchiveJournal.Entry] = []
      var archivedKept = 0
      for entry in s.journal.entries.reversed() {
        if entry.archived {
          guard archivedKept < 2000, access(entry.path, F_OK) == 0 else { continue }
          archivedKept += 1
        }
        kept.append(entry)
      }
      s.journal.entries = kept.reversed()
      return s.journal
    }
    do {
      try snapshot.save(folder: options.folder)
    } catch {
      report("warning: archive: \(error)")
    }
  }

  private func update(_ path: String, _ change: (inout ArchiveJournal.Entry) -> Void) {
    state.withLock { s in
      if let i = s.journal.entries.firstIndex(where: { $0.path == path }) { change(&s.journal.entries[i]) }
    }
    saveJournal()
  }

  /// Uploads one file, and notes it archived once the store confirmed it.
  private func upload(_ entry: ArchiveJournal.Entry, with worker: Worker) throws(ArchiveUploadFailure) {
    var entry = entry
    let fd = open(entry.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw .gone(errno == ENOENT ? "is gone from the disk" : "cannot be read: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var st = stat()
    fstat(fd, &st)
    if Int64(st.st_size) != entry.size {
      // Rewritten since it was handed over: its parts so far are of another file.
      entry.size = Int64(st.st_size)
      entry.upload = nil
      let size = entry.size
      update(entry.path) {
        $0.size = size
        $0.upload = nil
      }
    }
    do {
      if entry.size < options.multipartThreshold {
        try putWhole(entry, fd: fd, with: worker)
      } else {
        try putInParts(entry, fd: fd, with: worker)
      }
    } catch let failure as S3Failure {
      throw .store(failure)
    } catch let failure as ArchiveUploadFailure {
      throw failure
    } catch {
      throw .store(S3Failure(kind: .transport, message: "\(error)"))
    }
    state.withLock { s in
      s.archivedFiles += 1
      s.archivedBytes += entry.size
    }
    update(entry.path) {
      $0.archived = true
      $0.upload = nil
    }
    keepNewestLocally(after: entry.path)
  }

  private func putWhole(_ entry: ArchiveJournal.Entry, fd: Int32, with worker: Worker) throws {
    let md5 = try worker.md5(fd: fd, offset: 0, count: entry.size)
    _ = try worker.client.putObject(key: entry.key, body: FileRange(fd: fd, offset: 0, count: entry.size), md5: md5)
    try verify(entry, wholeMD5: md5, partMD5s: nil, with: worker)
  }

  /// S3 takes at most 10,000 parts: the part size grows (in whole MiB) for files
  /// beyond 10,000 times the smallest part.
  static func partSize(for size: Int64, smallest: Int64) -> Int64 {
    let mib: Int64 = 1 << 20
    let needed = (size + 9_999) / 10_000
    return max(smallest, (needed + mib - 1) / mib * mib)
  }

  private func putInParts(_ entry: ArchiveJournal.Entry, fd: Int32, with worker: Worker) throws {
    var upload = entry.upload
    // The parts the store still holds, as the journal noted them.
    var confirmed: [Int: ArchiveJournal.Part] = [:]
    if let known = upload {
      do {
        let held = try worker.client.listParts(key: entry.key, uploadID: known.id)
        let heldETags = Dictionary(held.map { ($0.number, $0.etag) }, uniquingKeysWith: { a, _ in a })
        for part in known.parts where heldETags[part.number] == part.etag { confirmed[part.number] = part }
      } catch {
        // The store ended it (expired, aborted): start again.
        guard error.status == 404 else { throw error }
        upload = nil
      }
    }
    let partSize = Self.partSize(for: entry.size, smallest: options.partSize)
    if upload == nil || upload!.partSize != partSize {
      if let stale = upload { try? worker.client.abortMultipartUpload(key: entry.key, uploadID: stale.id) }
      // Uploads of this key the journal does not know: a crash between starting one and
      // noting it.
      for orphan in try worker.client.listMultipartUploads(prefix: entry.key) where orphan.key == entry.key {
        try worker.client.abortMultipartUpload(key: orphan.key, uploadID: orphan.uploadID)
      }
      let id = try worker.client.createMultipartUpload(key: entry.key)
      upload = ArchiveJournal.Upload(id: id, partSize: partSize, parts: [])
      confirmed = [:]
      let noted = upload
      update(entry.path) { $0.upload = noted }
    }
    var current = upload!
    current.parts = confirmed.values.sorted { $0.number < $1.number }
    let count = Int((entry.size + current.partSize - 1) / current.partSize)
    if !confirmed.isEmpty {
      report("archive: '\(entry.path)' goes on from its upload's \(confirmed.count) confirmed part(s) of \(count)")
    }
    for number in 1...count where confirmed[number] == nil {
      let offset = Int64(number - 1) * current.partSize
      let body = FileRange(fd: fd, offset: offset, count: min(current.partSize, entry.size - offset))
      let md5 = try worker.md5(fd: fd, offset: body.offset, count: body.count)
      let etag = try worker.client.uploadPart(key: entry.key, uploadID: current.id, number: number, body: body, md5: md5)
      current.parts.append(ArchiveJournal.Part(number: number, etag: etag, md5: md5.hex))
      current.parts.sort { $0.number < $1.number }
      let noted = current
      update(entry.path) { $0.upload = noted }
    }
    _ = try worker.client.completeMultipartUpload(key: entry.key, uploadID: current.id, parts: current.parts.map { ($0.number, $0.etag) })
    let partMD5s = current.parts.compactMap { [UInt8](hex: $0.md5) }
    try verify(entry, wholeMD5: nil, partMD5s: partMD5s, with: worker)
  }

  /// The store's object against the local file: the same size, and the ETag S3 gives —
  /// the MD5 of a single PUT's body, or for parts the MD5 of their MD5s, a dash and
  /// the count. A store whose ETags are in another form (encrypted objects, a store
  /// that names multipart objects by the whole file's MD5) has still checked every
  /// byte it kept against its request's `Content-MD5`.
  private func verify(_ entry: ArchiveJournal.Entry, wholeMD5: [UInt8]?, partMD5s: [[UInt8]]?, with worker: Worker) throws {
    guard let object = try worker.client.headObject(key: entry.key) else {
      throw S3Failure(kind: .status(404, code: "NoSuchKey"), message: "'\(entry.key)' is not in the store after its upload")
    }
    guard object.size == entry.size else {
      throw S3Failure(
        kind: .status(500, code: nil), message: "'\(entry.key)' holds \(object.size) bytes in the store, the file \(entry.size)")
    }
    let etag = object.etag.lowercased()
    let expected: String
    if let partMD5s {
      guard etag.contains("-") else { return }
      expected = partMD5s.flatMap { $0 }.withUnsafeBytes { MD5Digest.of($0) }.hex + "-\(partMD5s.count)"
    } else if let wholeMD5, etag.count == 32, [UInt8](hex: etag) != nil {
      expected = wholeMD5.hex
    } else {
      return
    }
    guard etag == expected else {
      throw S3Failure(kind: .status(500, code: nil), message: "'\(entry.key)' has ETag \(etag) in the store, expected \(expected)")
    }
  }

  // MARK: Keeping N on the disk

  private static let companionExtensions: Set<String> = ["json", "png"]

  /// `--archive-keep-local N`: deletes archived movie files beyond the newest N, with
  /// their archived sidecars and pictures.
  private func keepNewestLocally(after archivedPath: String) {
    guard let keep = options.keepLocal else { return }
    let doomed = state.withLock { s -> [String] in
      let base = (archivedPath as NSString).deletingPathExtension
      if Self.companionExtensions.contains((archivedPath as NSString).pathExtension), s.removedBases.contains(base) {
        return [archivedPath]
      }
      let movies = s.journal.entries.filter { $0.archived && !Self.companionExtensions.contains(($0.path as NSString).pathExtension) }
      guard movies.count > keep else { return [] }
      var paths: [String] = []
      for movie in movies.dropLast(keep) {
        let base = (movie.path as NSString).deletingPathExtension
        s.removedBases.insert(base)
        paths.append(movie.path)
        for other in s.journal.entries where other.archived && other.path != movie.path
          && (other.path as NSString).deletingPathExtension == base
        {
          paths.append(other.path)
        }
      }
      return paths
    }
    guard !doomed.isEmpty else { return }
    for path in doomed { unlink(path) }
    saveJournal()
  }

  // MARK: Helpers

  public static func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return (path as NSString).standardizingPath }
    return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path) as NSString).standardizingPath
  }

  static func relativeName(_ absolute: String, in folder: String) -> String {
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : (absolute as NSString).lastPathComponent
  }

  static func size(of path: String) -> Int64 {
    var st = stat()
    return stat(path, &st) == 0 ? Int64(st.st_size) : 0
  }
}

/// Why one upload did not end in a confirmed object.
enum ArchiveUploadFailure: Error {
  /// The store did not take it: retried.
  case store(S3Failure)
  /// The local file is gone or unreadable: dropped.
  case gone(String)
}
