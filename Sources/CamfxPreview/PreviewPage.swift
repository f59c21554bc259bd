/// The preview's page: the live picture (`/stream.mjpeg`) and the figures of `/state`,
/// refreshed twice a second by a few lines of script, with the motion detector's boxes
/// drawn over the picture when it runs. No framework, nothing fetched from elsewhere.
/// For one camera of several it is that camera's, on its paths (`/cameras/NAME/...`).
enum PreviewPage {
  /// - Parameter camera: the camera's name for its own paths; nil for the one-camera
  ///   paths (`/stream.mjpeg`, `/state`).
  static func html(camera: String?) -> [UInt8] {
    // A camera's name needs no escaping in a path or a script (`PreviewCamera.isValid`);
    // the page escapes it in its text all the same.
    let base = camera.map { "/cameras/\($0)/" } ?? "/"
    let title = camera.map { "camfx preview: \(HTMLText.escape($0))" } ?? "camfx preview"
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
      #picture { display: block; max-width: 100%; background: #000; }
      #boxes { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; }
      #figures { padding: 8px 12px; }
      #figures b { font-weight: normal; color: #fff; }
      #outputs { font-size: 20px; color: #bbb; }
      #signal { color: #ff5050; }
    </style>
    </head>
    <body>
    <div id="view"><img id="picture" src="\(base)stream.mjpeg" alt="live picture"><canvas id="boxes"></canvas></div>
    <div id="figures">
      <span id="signal"></span>frames <b id="frames">0</b> &middot; <b id="fps">0.0</b> fps &middot; dropped <b id="dropped">0</b>
      &middot; <b id="bitrate">0 kbit/s</b> <span id="motion"></span>
      <div id="outputs"></div>
    </div>
    <script>
    function show(id, text) { document.getElementById(id).textContent = text; }
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
        const state = await (await fetch('\(base)state', { cache: 'no-store' })).json();
        show('signal', state.signal === 'lost' ? 'no signal \\u00b7 ' : state.signal === 'waiting' ? 'waiting \\u00b7 ' : '');
        show('frames', state.frames);
        show('fps', state.fps.toFixed(1));
        show('dropped', state.dropped);
        show('bitrate', (state.bitrate / 1000).toFixed(0) + ' kbit/s');
        show('outputs', (state.outputs || []).map(o => o.name + ': ' + o.state).join(' \\u00b7 '));
        show('motion', state.motion ? '\\u00b7 motion ' + state.motion.score.toFixed(2) + '% of ' +
          state.motion.threshold.toFixed(2) + '%' + (state.motion.moving ? ' MOVING' : '') : '');
        drawBoxes(state.motion);
      } catch (e) {
        show('outputs', 'no answer from camfx');
      }
      setTimeout(refresh, 500);
    }
    refresh();
    </script>
    </body>
    </html>

    """.utf8)
  }
}
