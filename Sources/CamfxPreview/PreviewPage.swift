/// The preview's page: the live picture and the figures of `/state`, refreshed twice a
/// second, with the motion detector's boxes drawn over the picture when it runs, a
/// button that takes a still and one that starts an event. No framework, nothing
/// fetched from elsewhere. For one camera of several it is that camera's, on its paths
/// (`/cameras/NAME/...`).
///
/// The picture is the live view (`live/ws`: the encoder's own H.264 through Media
/// Source Extensions, a fraction of a second behind the camera) where the browser and
/// the recording allow it, and the MJPEG stream otherwise, saying why. On the `live`
/// path the page does not fall back: it says why it cannot play. The script keeps the
/// video at the live edge (a jump when it is more than a second behind, as after the
/// server skipped it to a keyframe), measures how far behind the camera each shown
/// frame is (from the capture time in each fragment's `prft` box), shows the median,
/// and tells the server every 2 s. `window.camfxLive` holds those figures for tests.
enum PreviewPage {
  /// - Parameters:
  ///   - camera: the camera's name for its own paths; nil for the one-camera paths
  ///     (`/stream.mjpeg`, `/state`).
  ///   - live: the camera's live view, if it has one.
  ///   - livePath: the page of the `live` path: the live view or the reason, no MJPEG.
  static func html(camera: String?, live: LiveView?, livePath: Bool) -> [UInt8] {
    // A camera's name needs no escaping in a path or a script (`PreviewCamera.isValid`);
    // the page escapes it in its text all the same.
    let base = camera.map { "/cameras/\($0)/" } ?? "/"
    let title = camera.map { "camfx preview: \(HTMLText.escape($0))" } ?? "camfx preview"
    let refusal = live == nil ? "this camera has no live view" : live?.refusal
    let liveJSON =
      #"{"mime":"\#(jsonEscaped(live?.mimeType ?? ""))","refusal":\#(refusal.map { "\"\(jsonEscaped($0))\"" } ?? "null"),"forced":\#(livePath)}"#
    return Array(
      """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(title)</title>
      <style>
        body { margin: 0; background: #111; color: #eee; font: 28px/1.4 sans-serif; }
        #view { position: relative; display: inline-block; max-width: 100%; }
        #picture, #video { display: block; max-width: 100%; background: #000; }
        [hidden] { display: none !important; }
        #boxes { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; }
        #figures { padding: 8px 12px; }
        #figures b { font-weight: normal; color: #fff; }
        #outputs, #mode { font-size: 20px; color: #bbb; }
        #signal { color: #ff5050; }
        #clips { display: flex; flex-wrap: wrap; gap: 8px; padding: 0 12px 12px; font-size: 16px; color: #bbb; }
        #clips figure { margin: 0; width: 200px; }
        #clips img { display: block; width: 200px; background: #000; }
        button, .button { font: 20px sans-serif; margin: 4px 8px 4px 0; padding: 4px 12px; background: #333; color: #eee;
          border: 1px solid #666; border-radius: 4px; text-decoration: none; cursor: pointer; }
      </style>
      </head>
      <body>
      <div id="view"><video id="video" muted autoplay playsinline hidden></video><img id="picture" alt="live picture" hidden><canvas id="boxes"></canvas></div>
      <div id="figures">
        <span id="signal"></span>frames <b id="frames">0</b> &middot; <b id="fps">0.0</b> fps &middot; dropped <b id="dropped">0</b>
        &middot; <b id="bitrate">0 kbit/s</b> <span id="latency"></span> <span id="motion"></span>
        <div id="outputs"></div>
        <div><button id="unmute" hidden>Unmute</button><a class="button" href="\(base)snapshot.png" download>Take a still</a><button id="event">Start event</button> <span id="answer"></span></div>
        <div id="mode"></div>
      </div>
      <div id="clips"></div>
      <script>
      const base = '\(base)';
      const live = \(liveJSON);
      const camfxLive = window.camfxLive = {
        state: 'starting', reason: null, latencies: [], skips: 0, fragments: 0, jumps: 0, started: false, ahead: [], arrivals: [] };
      function show(id, text) { document.getElementById(id).textContent = text; }
      function median(values, q) {
        if (!values.length) return null;
        const sorted = values.slice().sort((a, b) => a - b);
        return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      }
      camfxLive.median = () => median(camfxLive.latencies.map(l => l[1]), 0.5);
      camfxLive.p95 = () => median(camfxLive.latencies.map(l => l[1]), 0.95);

      function startMJPEG(reason) {
        camfxLive.state = 'mjpeg';
        camfxLive.reason = reason;
        document.getElementById('video').hidden = true;
        const picture = document.getElementById('picture');
        picture.hidden = false;
        picture.src = base + 'stream.mjpeg';
        show('mode', 'MJPEG view: ' + reason);
      }
      function cannotPlay(reason) {
        camfxLive.state = 'refused';
        camfxLive.reason = reason;
        show('mode', 'no live view: ' + reason);
      }
      function whyNot() {
        if (live.refusal) return live.refusal;
        if (!window.MediaSource) return 'this browser has no Media Source Extensions';
        if (!MediaSource.isTypeSupported(live.mime)) return 'this browser cannot play ' + live.mime;
        return null;
      }

      // Boxes of an ISO BMFF message, at top level or inside the containers named.
      function boxes(bytes, start, end, into, containers) {
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let at = start; at + 8 <= end;) {
          const size = view.getUint32(at);
          const type = String.fromCharCode(bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]);
          if (size < 8 || at + size > end) break;
          into.push({ type, at, size, view });
          if (containers.includes(type)) boxes(bytes, at + 8, at + size, into, containers);
          at += size;
        }
        return into;
      }
      const timescales = {};
      function readInitSegment(bytes) {
        let track = 0;
        for (const b of boxes(bytes, 0, bytes.length, [], ['moov', 'trak', 'mdia'])) {
          const v1 = bytes[b.at + 8] === 1;
          if (b.type === 'tkhd') track = b.view.getUint32(b.at + (v1 ? 28 : 20));
          if (b.type === 'mdhd') timescales[track] = b.view.getUint32(b.at + (v1 ? 28 : 20));
        }
      }
      // Capture instant (ms since 1970) minus media time (ms): constant while nothing skips.
      let captureOffset = null;
      function readFragment(bytes) {
        for (const b of boxes(bytes, 0, bytes.length, [], [])) {
          if (b.type !== 'prft') continue;
          const v1 = bytes[b.at + 8] === 1;
          const track = b.view.getUint32(b.at + 12);
          const ntpMs = (b.view.getUint32(b.at + 16) - 2208988800) * 1000 + b.view.getUint32(b.at + 20) / 4294967.296;
          const media = v1 ? b.view.getUint32(b.at + 24) * 4294967296 + b.view.getUint32(b.at + 28) : b.view.getUint32(b.at + 24);
          const scale = timescales[track];
          if (scale) captureOffset = ntpMs - media * 1000 / scale;
          // How long after capture the fragment arrived: the latency before the browser's own.
          camfxLive.arrivals.push(Date.now() - ntpMs);
          if (camfxLive.arrivals.length > 1800) camfxLive.arrivals.shift();
        }
      }

      function startLive() {
        const video = document.getElementById('video');
        video.hidden = false;
        const unmute = document.getElementById('unmute');
        unmute.hidden = false;
        unmute.onclick = () => { video.muted = !video.muted; unmute.textContent = video.muted ? 'Unmute' : 'Mute'; };
        const source = new MediaSource();
        video.src = URL.createObjectURL(source);
        source.addEventListener('sourceopen', () => {
          const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + base + 'live/ws');
          socket.binaryType = 'arraybuffer';
          let buffer = null, queue = [], initDone = false, lastTrim = 0;
          function keepAtEdge() {
            const ranges = video.buffered;
            if (!ranges.length) return;
            const start = ranges.start(ranges.length - 1), end = ranges.end(ranges.length - 1);
            // A tenth of a second of video ahead is enough to play without stalling:
            // start there, jump back there from a second behind (or a skip), and play a
            // little faster from 0.3 s behind until 0.15 s.
            if (!camfxLive.started || end - video.currentTime > 1 || video.currentTime < start) {
              video.currentTime = Math.max(start, end - 0.1);
              if (camfxLive.started) camfxLive.jumps++;
              camfxLive.started = true;
            }
            const ahead = end - video.currentTime;
            camfxLive.ahead.push(ahead * 1000);
            if (camfxLive.ahead.length > 1800) camfxLive.ahead.shift();
            if (ahead > 0.3) video.playbackRate = 1.1; else if (ahead < 0.15) video.playbackRate = 1;
            if (video.paused) video.play().catch(() => {});
            if (!buffer.updating && video.currentTime - lastTrim > 20 && video.currentTime > 15) {
              lastTrim = video.currentTime;
              buffer.remove(0, video.currentTime - 10);
            }
          }
          function pump() {
            if (!buffer || buffer.updating || !queue.length) return;
            let total = 0;
            for (const q of queue) total += q.length;
            const joined = new Uint8Array(total);
            let at = 0;
            for (const q of queue) { joined.set(q, at); at += q.length; }
            queue = [];
            try { buffer.appendBuffer(joined); } catch (e) { show('mode', 'live view: ' + e.message); }
          }
          socket.onmessage = (message) => {
            if (typeof message.data === 'string') {
              const m = JSON.parse(message.data);
              if (m.type === 'hello') {
                buffer = source.addSourceBuffer(m.mime);
                buffer.mode = 'segments';
                buffer.addEventListener('updateend', () => { keepAtEdge(); pump(); });
                camfxLive.state = 'live';
                show('mode', 'live view: ' + m.mime);
              } else if (m.type === 'skip') {
                camfxLive.skips++;
              } else if (m.type === 'error') {
                live.forced ? cannotPlay(m.message) : startMJPEG(m.message);
              }
              return;
            }
            const bytes = new Uint8Array(message.data);
            if (!initDone) { readInitSegment(bytes); initDone = true; } else { readFragment(bytes); camfxLive.fragments++; }
            queue.push(bytes);
            pump();
          };
          socket.onclose = () => { if (camfxLive.state === 'live') { camfxLive.state = 'closed'; show('mode', 'live view ended'); } };
          setInterval(() => {
            const latency = camfxLive.median();
            if (socket.readyState === 1 && latency !== null) socket.send(JSON.stringify({ latency: latency / 1000 }));
          }, 2000);
        });
        function shown(now, frame) {
          if (captureOffset !== null) {
            const latency = performance.timeOrigin + frame.expectedDisplayTime - (captureOffset + frame.mediaTime * 1000);
            camfxLive.latencies.push([Date.now(), latency]);
            const cutoff = Date.now() - 60000;
            while (camfxLive.latencies.length && camfxLive.latencies[0][0] < cutoff) camfxLive.latencies.shift();
          }
          video.requestVideoFrameCallback(shown);
        }
        if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(shown);
      }
      const reason = whyNot();
      if (!reason) startLive(); else if (live.forced) cannotPlay(reason); else startMJPEG(reason);

      document.getElementById('event').onclick = async () => {
        try {
          const answer = await fetch(base + 'event', { method: 'POST' });
          show('answer', answer.ok ? 'event started' : (await answer.text()).trim());
        } catch (e) { show('answer', 'no answer from camfx'); }
      };
      function drawBoxes(motion) {
        const canvas = document.getElementById('boxes');
        const context = canvas.getContext('2d');
        if (!motion) { context.clearRect(0, 0, canvas.width, canvas.height); return; }
        canvas.width = motion.width;
        canvas.height = motion.height;
        context.lineWidth = Math.max(2, motion.width / 320);
        context.strokeStyle = motion.moving ? '#ff3030' : '#ffd030';
        for (const b of motion.boxes) context.strokeRect(b.x, b.y, b.width, b.height);
      }
      async function refresh() {
        try {
          const state = await (await fetch(base + 'state', { cache: 'no-store' })).json();
          show('signal', state.signal === 'lost' ? 'no signal \\u00b7 ' : state.signal === 'waiting' ? 'waiting \\u00b7 ' : '');
          show('frames', state.frames);
          show('fps', state.fps.toFixed(1));
          show('dropped', state.dropped);
          show('bitrate', (state.bitrate / 1000).toFixed(0) + ' kbit/s');
          const latency = camfxLive.median();
          show('latency', latency === null ? '' : '\\u00b7 ' + latency.toFixed(0) + ' ms behind the camera');
          const t = Math.floor(state.elapsed_seconds);
          const clock = Math.floor(t / 3600) + ':' + String(Math.floor(t / 60) % 60).padStart(2, '0') + ':' +
            String(t % 60).padStart(2, '0');
          show('outputs', ['time ' + clock].concat((state.outputs || []).map(o => o.name + ': ' + o.state +
            (o.reconnects ? ' (' + o.reconnects + ' reconnects)' : ''))).join(' \\u00b7 '));
          show('motion', state.motion ? '\\u00b7 motion ' + state.motion.score.toFixed(2) + '% of ' +
            state.motion.threshold.toFixed(2) + '%' + (state.motion.moving ? ' MOVING' : '') : '');
          drawBoxes(state.motion);
        } catch (e) {
          show('outputs', 'no answer from camfx');
        }
        setTimeout(refresh, 500);
      }
      refresh();

      // The newest event clips, with their pictures.
      async function listClips() {
        try {
          const answer = await (await fetch(base + 'events', { cache: 'no-store' })).json();
          const list = document.getElementById('clips');
          list.replaceChildren(...answer.clips.map(clip => {
            const figure = document.createElement('figure');
            if (clip.picture) {
              const picture = document.createElement('img');
              picture.src = base + 'events/' + encodeURIComponent(clip.name) + '.png';
              picture.alt = clip.name;
              figure.append(picture);
            }
            const caption = document.createElement('figcaption');
            caption.textContent = new Date(clip.triggered_at * 1000).toLocaleTimeString() + ' \\u00b7 ' + clip.trigger +
              ' \\u00b7 ' + clip.seconds.toFixed(1) + ' s' + (clip.in_progress ? ' (recording)' : '');
            figure.append(caption);
            return figure;
          }));
        } catch (e) {}
        setTimeout(listClips, 5000);
      }
      listClips();
      </script>
      </body>
      </html>

      """.utf8)
  }

  /// `text` inside a JSON string in a script: quotes, backslashes, and `<` (no `</script>`).
  static func jsonEscaped(_ text: String) -> String {
    var out = ""
    for c in text.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "<": out += "\\u003c"
      case "\n": out += "\\n"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}
