/// The preview's page: the live picture (`/stream.mjpeg`) and the figures of `/state`,
/// refreshed twice a second by a few lines of script. No framework, nothing fetched
/// from elsewhere.
enum PreviewPage {
  static let html: [UInt8] = Array(
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>camfx preview</title>
    <style>
      body { margin: 0; background: #111; color: #eee; font: 28px/1.4 sans-serif; }
      #picture { display: block; max-width: 100%; background: #000; }
      #figures { padding: 8px 12px; }
      #figures b { font-weight: normal; color: #fff; }
      #outputs { font-size: 20px; color: #bbb; }
    </style>
    </head>
    <body>
    <img id="picture" src="/stream.mjpeg" alt="live picture">
    <div id="figures">
      frames <b id="frames">0</b> &middot; <b id="fps">0.0</b> fps &middot; dropped <b id="dropped">0</b>
      &middot; <b id="bitrate">0 kbit/s</b>
      <div id="outputs"></div>
    </div>
    <script>
    function show(id, text) { document.getElementById(id).textContent = text; }
    async function refresh() {
      try {
        const state = await (await fetch('/state', { cache: 'no-store' })).json();
        show('frames', state.frames);
        show('fps', state.fps.toFixed(1));
        show('dropped', state.dropped);
        show('bitrate', (state.bitrate / 1000).toFixed(0) + ' kbit/s');
        show('outputs', (state.outputs || []).map(o => o.name + ': ' + o.state).join(' \\u00b7 '));
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
