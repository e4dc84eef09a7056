// The sample site's text files. Its pages link each other, so a browser pointed at the edge exercises
// several content types, a video played as browsers play one (ranges, seeks), and one large object.

/** The large object's key; its bytes are made by `deterministicBytes` in assets.ts. */
export const BIG_ASSET_KEY = 'video/big.bin';
/** The sample video's key; its bytes are local/sample-video.mp4 (assets.ts says how it was made). */
export const VIDEO_ASSET_KEY = 'video/sample.mp4';

export const CATALOG = {
  site: 'tiercache sample',
  items: [
    { key: 'index.html', title: 'Home page' },
    { key: 'css/site.css', title: 'Style sheet' },
    { key: 'js/app.js', title: 'Script that renders this catalog' },
    { key: 'img/logo.png', title: '64×64 gradient logo' },
    { key: VIDEO_ASSET_KEY, title: '30 s test pattern, H.264 in MP4, 9 MB: two 8 MiB slices' },
    { key: BIG_ASSET_KEY, title: '64 MiB of seeded pseudo-random bytes (ranges, slices)' },
  ],
};

export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>tiercache sample</title>
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <h1><img src="/img/logo.png" alt="" width="32" height="32"> tiercache sample</h1>
  <p>Served by the edge worker, filled by the shield, stored in the embedded S3 origin.</p>
  <video id="sample" src="/${VIDEO_ASSET_KEY}" controls muted playsinline preload="metadata" width="640" height="360"></video>
  <p>The video is 9 MB: the edge reads it as two 8 MiB slices, each stored at the shield and at the edge;
  the browser asks for ranges, and a seek asks for another.</p>
  <ul id="catalog"><li><a href="/data/catalog.json">catalog.json</a></li></ul>
  <p><a href="/${BIG_ASSET_KEY}">${BIG_ASSET_KEY}</a> (64 MiB, try a Range request)</p>
  <script src="/js/app.js" defer></script>
</body>
</html>
`;

export const SITE_CSS = `body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 40rem; }
h1 img { vertical-align: middle; }
video { display: block; width: 100%; height: auto; background: #000; }
#catalog code { background: #eee; padding: 0 .25rem; }
`;

export const APP_JS = `// Replaces the catalog link with the catalog's items.
fetch('/data/catalog.json')
  .then((response) => response.json())
  .then((catalog) => {
    const list = document.getElementById('catalog');
    list.replaceChildren(...catalog.items.map((item) => {
      const entry = document.createElement('li');
      entry.innerHTML = '<a></a> <code></code>';
      entry.firstChild.href = '/' + item.key;
      entry.firstChild.textContent = item.title;
      entry.lastChild.textContent = item.key;
      return entry;
    }));
  });
`;
