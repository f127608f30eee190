// The frame of the table's picture. The table fetches the game's picture (with the player's token,
// which never enters this frame) and hands its bytes (UTF-8) over to this frame; each new picture
// replaces the last one in this same document, and the view starts where the player left the last
// one: zoom, pan, step and hidden timelines kept (window.fivedpView, the view's own script). The
// frame is sandboxed: it has no origin of its own, so nothing drawn here can read the table's page.
(function () {
  let view = null;
  function draw(text) {
    const keep = view ? view.state() : null;
    // parsed inert (a template's content): the picture file's own style and script are dropped, never
    // applied (this frame has the view's style and script from the server), and its page's title; the
    // titles of the picture's boards, units and orders (SVG's) stay: they are its details on hover
    const t = document.createElement('template');
    t.innerHTML = text;
    t.content.querySelectorAll('script, style, meta, link').forEach((e) => e.remove());
    t.content.querySelectorAll('title').forEach((e) => { if (!(e instanceof SVGElement)) e.remove(); });
    mapAsImage(t.content);
    // moved into the page, not copied: a picture of hundreds of boards is tens of thousands of nodes
    document.body.replaceChildren(t.content);
    view = window.fivedpView(keep);
    parent.postMessage({drawn: true}, '*');
  }
  // Every board places the same map (a symbol, with <use>): a browser clones the symbol's shapes for
  // each board, some 200 of them, which for a game of hundreds of boards is most of the page's work.
  // Drawn as one image instead, the map is rendered once and placed on every board.
  function mapAsImage(root) {
    const symbol = root.querySelector('symbol#map');
    if (!symbol) return;
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" font-family="system-ui,sans-serif" viewBox="' +
      symbol.getAttribute('viewBox') + '">' + symbol.innerHTML + '</svg>';
    const href = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
    root.querySelectorAll('use').forEach((use) => {
      if (use.getAttribute('href') !== '#map') return;
      const image = document.createElementNS('http://www.w3.org/2000/svg', 'image');
      for (const a of ['x', 'y', 'width', 'height']) image.setAttribute(a, use.getAttribute(a));
      image.setAttribute('href', href);
      use.replaceWith(image);
    });
  }
  function showPlayed(step) {
    const text = document.querySelector('.steptext[data-played="' + Number(step) + '"]');
    if (view && text) view.go(Number(text.dataset.step));
  }
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (e.source !== parent || !m || typeof m !== 'object') return;
    if (m.picture instanceof ArrayBuffer) draw(new TextDecoder().decode(m.picture));
    else if (Number.isInteger(m.played)) showPlayed(m.played);
    else if (m.hello) parent.postMessage({ready: true}, '*');
  });
  parent.postMessage({ready: true}, '*');
})();
