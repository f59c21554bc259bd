import CamfxCore

/// The page of a preview with several cameras: each camera (a mosaic is one more) with
/// a snapshot that refreshes every second, its name linking to its own live page, and
/// its figures from `/state` twice a second: whether its signal is live, lost or not
/// there yet, frames, frame rate, drops and outputs.
///
/// Snapshots rather than streams: a dozen MJPEG streams on one page would take the
/// server's viewer places and encode a dozen JPEGs at the preview's rate; a snapshot a
/// second each is cheap, and a camera's own page has its stream. The next snapshot is
/// asked for only when the last one has arrived (or failed, as it does while a camera is
/// gone), so a slow camera or network never piles requests up; none is asked of a camera
/// whose signal is lost. No framework, nothing fetched from elsewhere.
enum PreviewCamerasPage {
  /// - Parameter cameras: each camera's name and the size of its pictures (the page
  ///   keeps each picture's place at its shape before the first snapshot, or without one).
  static func html(cameras: [(name: String, geometry: FrameGeometry)]) -> [UInt8] {
    // Valid names need no escaping in a path (`PreviewCamera.isValid`); the page escapes
    // them in its text and attributes all the same, and the script reads them from there.
    let figures = cameras.map { name, geometry in
      let text = HTMLText.escape(name)
      return """
        <figure class="camera" data-name="\(text)">
          <a class="frame" href="/cameras/\(text)/"><img class="picture" alt="\(text)" width="\(geometry.width)" height="\(geometry.height)"></a>
          <figcaption><a class="name" href="/cameras/\(text)/">\(text)</a>
            <span class="signal waiting">waiting</span><br>
            frames <b class="frames">0</b> &middot; <b class="fps">0.0</b> fps &middot; dropped <b class="dropped">0</b>
            <div class="outputs"></div>
          </figcaption>
        </figure>
        """
    }
    return Array(
      """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>camfx preview</title>
      <style>
        body { margin: 0; background: #111; color: #eee; font: 18px/1.4 sans-serif; }
        #cameras { display: flex; flex-wrap: wrap; gap: 12px; padding: 12px; }
        .camera { margin: 0; width: 360px; }
        .frame { display: block; background: #000; }
        .picture { display: block; width: 360px; height: auto; }
        .picture:not([src]) { visibility: hidden; }
        .camera.lost .picture { opacity: 0.35; }
        figcaption { padding: 4px 0; }
        figcaption b { font-weight: normal; color: #fff; }
        .name { color: #fff; font-weight: bold; }
        .signal { font-size: 15px; padding: 0 6px; border-radius: 3px; }
        .signal.live { background: #1d6b2c; }
        .signal.lost { background: #a01818; }
        .signal.waiting { background: #555; }
        .outputs { font-size: 14px; color: #bbb; }
      </style>
      </head>
      <body>
      <div id="cameras">
      \(figures.joined(separator: "\n"))
      </div>
      <script>
      const cameras = Array.from(document.querySelectorAll('.camera'));
      function path(camera, resource) { return '/cameras/' + encodeURIComponent(camera.dataset.name) + '/' + resource; }
      function show(camera, selector, text) { camera.querySelector(selector).textContent = text; }
      async function refreshPicture(camera) {
        // A camera without signal has no frame to give: its last picture stays, dimmed.
        if (camera.classList.contains('lost')) { setTimeout(() => refreshPicture(camera), 1000); return; }
        try {
          const answer = await fetch(path(camera, 'snapshot.jpg') + '?t=' + Date.now(), { cache: 'no-store' });
          if (answer.ok) {
            const picture = camera.querySelector('.picture');
            const old = picture.src;
            picture.src = URL.createObjectURL(await answer.blob());
            if (old.startsWith('blob:')) URL.revokeObjectURL(old);
          }
        } catch (e) {}
        setTimeout(() => refreshPicture(camera), 1000);
      }
      async function refreshFigures() {
        try {
          const state = await (await fetch('/state', { cache: 'no-store' })).json();
          for (const camera of cameras) {
            const figures = state.cameras[camera.dataset.name];
            if (!figures) continue;
            const signal = camera.querySelector('.signal');
            signal.className = 'signal ' + figures.signal;
            signal.textContent = figures.signal === 'live' ? 'live' : figures.signal === 'lost'
              ? 'no signal for ' + figures.seconds_since_last_frame.toFixed(0) + ' s' : 'waiting';
            camera.classList.toggle('lost', figures.signal === 'lost');
            show(camera, '.frames', figures.frames);
            show(camera, '.fps', figures.fps.toFixed(1));
            show(camera, '.dropped', figures.dropped);
            show(camera, '.outputs', (figures.outputs || []).map(o => o.name + ': ' + o.state).join(' \\u00b7 '));
          }
        } catch (e) {
          for (const camera of cameras) show(camera, '.outputs', 'no answer from camfx');
        }
        if (!picturesStarted) {
          picturesStarted = true;
          cameras.forEach(refreshPicture);
        }
        setTimeout(refreshFigures, 500);
      }
      // The pictures start once the figures have said which cameras have a signal.
      let picturesStarted = false;
      refreshFigures();
      </script>
      </body>
      </html>

      """.utf8)
  }
}
