"""The live view measured (benchmarks/live-view.sh runs it): latency from capture to the
screen in headless Chromium, read by the page itself from the capture stamps, and the
CPU camfx spends with 0, 1 and 16 live viewers beside 1 and 16 MJPEG viewers.
Python's standard library only: a small WebSocket client (RFC 6455) serves both the
DevTools protocol and the viewers that read and discard."""
import base64, json, os, random, shutil, signal, socket, statistics, struct, subprocess, sys, tempfile, threading, time

CAMFX = os.environ.get("CAMFX", ".build/release/camfx")
SIZE = os.environ.get("SIZE", "1280x720")
LIVE_SECONDS = float(os.environ.get("LIVE_SECONDS", "60"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
DRIFT_MINUTES = float(os.environ.get("DRIFT_MINUTES", "0"))
WARM_UP = 5.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebSocket:
    def __init__(self, port, path):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk: raise RuntimeError("closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]: raise RuntimeError(head.decode(errors="replace"))

    def _need(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(262144)
            if not chunk: raise EOFError
            self.buffer += chunk

    def send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else
               bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def read(self):
        """(opcode, payload) of the next message; pings answered."""
        while True:
            self._need(2)
            opcode, n = self.buffer[0] & 15, self.buffer[1] & 127
            at = 2
            if n == 126: self._need(4); n = struct.unpack(">H", self.buffer[2:4])[0]; at = 4
            elif n == 127: self._need(10); n = struct.unpack(">Q", self.buffer[2:10])[0]; at = 10
            self._need(at + n)
            payload, self.buffer = self.buffer[at:at + n], self.buffer[at + n:]
            if opcode == 9: self.send(10, payload); continue
            if opcode == 8: raise EOFError
            return opcode, payload


class Chromium:
    def __init__(self, url):
        self.profile = tempfile.mkdtemp(prefix="camfx-live-bench-")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
             "--window-size=1400,1000", url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        port, said, deadline = None, b"", time.time() + 30
        while port is None and time.time() < deadline:
            line = self.process.stderr.readline()
            if not line: break
            said += line
            if b"DevTools listening on ws://127.0.0.1:" in line:
                port = int(line.split(b"127.0.0.1:")[1].split(b"/")[0])
        if port is None: raise RuntimeError("chromium never listened: " + said.decode(errors="replace"))
        threading.Thread(target=lambda: self.process.stderr.read(), daemon=True).start()
        pages = []
        for _ in range(100):
            # DevTools' HTTP server keeps the connection open: read by Content-Length.
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                data = b""
                while b"\r\n\r\n" not in data: data += s.recv(65536)
                head, body = data.split(b"\r\n\r\n", 1)
                length = int(next(l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")))
                while len(body) < length: body += s.recv(65536)
            pages = [t for t in json.loads(body) if t.get("type") == "page"]
            if pages: break
            time.sleep(0.1)
        self.ws = WebSocket(port, "/devtools/" + pages[0]["webSocketDebuggerUrl"].split("/devtools/", 1)[1])
        self.next = 0

    def evaluate(self, expression):
        self.next += 1
        self.ws.send(1, json.dumps({"id": self.next, "method": "Runtime.evaluate",
                                    "params": {"expression": expression, "returnByValue": True}}).encode())
        while True:
            opcode, payload = self.ws.read()
            answer = json.loads(payload)
            if answer.get("id") == self.next:
                return answer.get("result", {}).get("result", {}).get("value")

    def close(self):
        try: os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError: pass
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def start_camfx(port, seconds, work, sound=True):
    process = subprocess.Popen(
        [CAMFX, "record", "--source", "testsrc", "--size", SIZE, "--fps", "30", "--tune", "zerolatency", "--audio",
         "sine=440" if sound else "none", "--preview", f"127.0.0.1:{port}", "--duration", f"{int(seconds)}s", "--quiet", "-y",
         "-o", os.path.join(work, "out.mp4")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("camfx never served its preview")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency(work, sound):
    port = free_port()
    minutes = max(DRIFT_MINUTES, 0)
    seconds = minutes * 60 if minutes else LIVE_SECONDS
    camfx = start_camfx(port, seconds + 20, work, sound)
    browser = Chromium(f"http://127.0.0.1:{port}/live")
    try:
        started, seen, figures = time.time(), set(), {}
        # The page keeps 60 s of figures: read them at least every 50 s.
        while time.time() - started < seconds:
            time.sleep(min(50, seconds - (time.time() - started)))
            figures = json.loads(browser.evaluate(
                "JSON.stringify({l: camfxLive.latencies, s: camfxLive.skips, state: camfxLive.state, "
                "a: camfxLive.arrivals, b: camfxLive.ahead})") or "{}")
            seen.update((t, v) for t, v in figures.get("l", []))
        kept = sorted(seen)
        values = [v for _, v in kept]
        if not values:
            print(f"no latency figures; the page said: {figures}")
            return
        ordered = sorted(values)
        print(f"latency capture→screen, {SIZE} 30 fps --tune zerolatency, {'with' if sound else 'without'} sound, "
              f"{len(values)} frames over {seconds:.0f} s: "
              f"median {statistics.median(values):.0f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:.0f} ms, "
              f"skips {figures.get('s')}")
        if figures.get("a") and figures.get("b"):
            print(f"  of which: capture→fragment at the page median {statistics.median(figures['a']):.0f} ms, "
                  f"video buffered ahead of the picture median {statistics.median(figures['b']):.0f} ms (last 60 s)")
        if minutes >= 2:
            t0 = kept[0][0]
            first = [v for t, v in kept if t - t0 < 60_000]
            final = [v for t, v in kept if t - t0 > (minutes - 1) * 60_000]
            print(f"drift: median of minute 1 {statistics.median(first):.0f} ms, of minute {minutes:.0f} "
                  f"{statistics.median(final):.0f} ms")
    finally:
        browser.close()
        camfx.kill()
        camfx.wait()


def live_reader(port, stop, counts, index):
    ws = WebSocket(port, "/live/ws")
    ws.sock.settimeout(1)
    while not stop.is_set():
        try:
            opcode, payload = ws.read()
        except socket.timeout:
            continue
        except (EOFError, OSError):
            break
        counts[index][0] += len(payload)
        if opcode == 1 and b'"skip"' in payload: counts[index][1] += 1


def mjpeg_reader(port, stop, counts, index):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /stream.mjpeg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    s.settimeout(1)
    while not stop.is_set():
        try:
            chunk = s.recv(262144)
        except socket.timeout:
            continue
        if not chunk: break
        counts[index][0] += len(chunk)


def cpu_case(live, mjpeg, work):
    port = free_port()
    camfx = start_camfx(port, WARM_UP + LIVE_SECONDS + 10, work)
    stop, counts, threads = threading.Event(), [[0, 0] for _ in range(live + mjpeg)], []
    for i in range(live + mjpeg):
        target = live_reader if i < live else mjpeg_reader
        threads.append(threading.Thread(target=target, args=(port, stop, counts, i), daemon=True))
        threads[-1].start()
    time.sleep(WARM_UP)
    before = cpu_seconds(camfx.pid)
    time.sleep(LIVE_SECONDS)
    used = cpu_seconds(camfx.pid) - before
    stop.set()
    for t in threads: t.join(3)
    camfx.kill()
    camfx.wait()
    live_bytes = [c[0] for c in counts[:live]]
    return used, (statistics.median(live_bytes) if live_bytes else 0), sum(c[1] for c in counts[:live])


def main():
    if not shutil.which("chromium"): sys.exit("chromium is missing: bash scripts/setup.sh --test installs it")
    work = tempfile.mkdtemp(prefix="camfx-live-view-")
    try:
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(open('/proc/loadavg').read().split()[:3])}")
        latency(work, sound=True)
        latency(work, sound=False)
        if ROUNDS < 1: return
        cases = [("no viewer", 0, 0), ("1 live viewer", 1, 0), ("16 live viewers", 16, 0),
                 ("1 MJPEG viewer", 0, 1), ("16 MJPEG viewers", 0, 16)]
        results = {name: [] for name, _, _ in cases}
        for round in range(ROUNDS):
            for name, live, mjpeg in (cases if round % 2 == 0 else list(reversed(cases))):
                results[name].append(cpu_case(live, mjpeg, work))
        print(f"CPU of camfx over {LIVE_SECONDS:.0f} s of {SIZE} 30 fps (user+system s), {ROUNDS} alternating rounds:")
        print(f"  {'case':18} {'min':>7} {'median':>7} {'max':>7}  per live viewer  skips")
        for name, _, _ in cases:
            used = [r[0] for r in results[name]]
            per = statistics.median([r[1] for r in results[name]])
            skips = sum(r[2] for r in results[name])
            print(f"  {name:18} {min(used):7.2f} {statistics.median(used):7.2f} {max(used):7.2f}  "
                  f"{per / LIVE_SECONDS / 1000:8.0f} kB/s  {skips:5d}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
