"""The pages of ``fivedp serve`` for a browser: the home page (start a game, open one), the table
(``/play/{id}``: the multiverse drawn, the orders given with a verdict per line, the To-do, who has
submitted, the deadline, the last step's results) and the picture of a game as one viewer may see it.

Everything a page needs is in the page: no script, style or font is fetched from anywhere, so a
table works on a network without the internet. The token stays in the address's fragment
(``#token=...``) and goes to the server only in an ``Authorization`` header. Text from the server
is put into the page as text (``textContent``), never as markup; the picture is drawn in a frame
without the page's origin (``sandbox``), so its scripts cannot read the token.
"""

from __future__ import annotations

import html
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store import Games

_FRAMES: OrderedDict[tuple[str, int], list] = OrderedDict()
_FRAMES_LOCK = threading.Lock()
REPLAYED_STEPS = 60  # up to this many steps a picture replays every step; past it, boards as recorded


def picture_html(games: "Games", game_id: str, token: str | None) -> str:
    """The game drawn as ``fivedp game show --html`` draws it, with the orders the token's holder may
    see: a player its own waiting orders, the host and spectators none. The steps played are drawn
    once per step and kept (replaying a game costs a step's adjudication per step); past
    ``REPLAYED_STEPS`` steps they are the boards as recorded."""
    from dataclasses import replace

    from ..report.render import game_pictures, game_steps, page

    game, role, sealed = games.snapshot(game_id, token)
    title = f"Game {game_id}"
    key = (game_id, len(game.history), hash(str(game.history[-1])) if game.history else 0)
    with _FRAMES_LOCK:
        steps = _FRAMES.get(key)
    if steps is None:
        steps = game_steps(game, title, REPLAYED_STEPS)
        with _FRAMES_LOCK:
            _FRAMES[key] = steps
            while len(_FRAMES) > 16:
                _FRAMES.popitem(last=False)
    own = {role.power: list(sealed.orders[role.power])} if role.power in sealed.orders else {}
    return page(title, game_pictures(replace(game, pending=own), title, steps))


_STYLE = """
*{box-sizing:border-box} body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1c1c1c;background:#f4f3ef}
header{padding:.5rem 1rem;background:#2b3a55;color:#fff;display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap}
header h1{font-size:1.1rem;margin:0} header .role{font-weight:600} header .deadline{margin-left:auto}
main{display:grid;grid-template-columns:minmax(0,1fr) 26rem;gap:.75rem;padding:.75rem;height:calc(100vh - 3rem)}
iframe{width:100%;height:100%;border:1px solid #bbb;background:#fff}
aside{overflow:auto;display:flex;flex-direction:column;gap:.75rem}
section{background:#fff;border:1px solid #ccc;border-radius:4px;padding:.6rem}
section h2{font-size:1rem;margin:0 0 .4rem} textarea{width:100%;min-height:8rem;font:13px monospace}
button{font:inherit;padding:.25rem .6rem;margin:.15rem .15rem 0 0;cursor:pointer}
ul{margin:.2rem 0;padding-left:1.2rem} .legal{color:#17672b} .illegal{color:#a4161a;font-weight:600}
.muted{color:#666} .units button{font-size:12px} .possible li{cursor:pointer} .possible li:hover{background:#eef}
.error{color:#a4161a} pre{white-space:pre-wrap;margin:0;font:12px monospace}
@media (max-width:900px){main{grid-template-columns:1fr;height:auto} iframe{height:70vh}}
"""

_HOME = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>fivedp: 5D Diplomacy tables</title><style>{style}</style></head><body>
<header><h1>fivedp: 5D Diplomacy with Multiversal Time Travel</h1></header>
<main style="display:block;height:auto;max-width:48rem">
<section><h2>Start a game</h2>
<form id="new">
<p><label>adjacency <select name="adjacency"><option>family</option><option>any</option></select></label>
<label>victory <select name="victory"><option>elimination</option><option>majority</option><option>unique</option></select></label>
<label><input type="checkbox" name="sustain"> sustain phase</label></p>
<p><label>deadline per phase, in minutes (empty: none) <input name="deadline" type="number" min="1" style="width:6rem"></label></p>
<p><button type="submit">Start</button></p></form>
<p id="made" class="muted">You become the host: you get the host's link. Players join from the game's page.</p></section>
<section><h2>Start from a game file</h2><input type="file" id="file" accept=".yaml,.yml">
<button type="button" id="upload">Upload</button></section>
<section><h2>Open a game</h2><form id="open"><input name="id" placeholder="game id" required>
<button type="submit">Open</button></form></section>
</main>
<script>{script}</script></body></html>"""

_HOME_SCRIPT = r"""
const say = (t) => { document.getElementById('made').textContent = t; };
async function start(body) {
  const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  const d = await r.json();
  if (!r.ok) { say(d.error || 'refused'); return; }
  location.href = d.play;
}
document.getElementById('new').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = e.target, options = {adjacency: f.adjacency.value, victory: f.victory.value, sustain: f.sustain.checked};
  const body = {options};
  if (f.deadline.value) body.deadline = Math.round(Number(f.deadline.value) * 60);
  start(body);
});
document.getElementById('upload').addEventListener('click', async () => {
  const file = document.getElementById('file').files[0];
  if (file) start({file: await file.text()});
});
document.getElementById('open').addEventListener('submit', (e) => {
  e.preventDefault(); location.href = '/play/' + encodeURIComponent(e.target.id.value.trim());
});
"""

_PLAY = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>fivedp game {game}</title><style>{style}</style></head><body data-game="{game}">
<header><h1>Game {game}</h1><span class="role" id="role"></span><span id="phase"></span>
<span class="deadline" id="deadline"></span></header>
<main><iframe id="picture" title="the multiverse" sandbox="allow-scripts"></iframe>
<aside>
<section id="join" hidden><h2>Join this game</h2><p>Play as <select id="power"></select>
<button type="button" id="joinbtn">Join</button></p>
<p class="muted">Keep the link the page moves to: it is your only way back in as that power.</p></section>
<section id="link" hidden><h2>Your link</h2><p class="muted" id="linkwhat">Bookmark it; anyone with it plays as you.</p>
<input id="mylink" readonly style="width:100%">
<div id="share" hidden><p>This link is the host's: keep it to yourself. Whoever opens it is the host, and may
adjudicate, undo and download the game. Give the players the game's own link instead; each chooses a power there:</p>
<input id="joinlink" readonly style="width:100%"></div></section>
<section id="todo"><h2>To do</h2><ul id="duties"></ul><div class="units" id="units"></div>
<ul class="possible" id="possible"></ul></section>
<section id="ordersbox" hidden><h2>Your orders</h2>
<textarea id="orders" spellcheck="false" aria-label="your orders, one per line"></textarea>
<div><button type="button" id="check">Check</button><button type="button" id="submit">Submit</button>
<button type="button" id="withdraw">Withdraw</button></div><ul id="verdicts"></ul></section>
<section><h2>Submitted</h2><p id="submitted" class="muted"></p></section>
<section id="hostbox" hidden><h2>Host</h2>
<button type="button" id="adjudicate">Adjudicate now</button><button type="button" id="undo">Undo last step</button>
<button type="button" id="download">Download the game file</button><p id="players" class="muted"></p></section>
<section><h2>Last step</h2><pre id="last" class="muted">none yet</pre></section>
<p id="message" class="error" role="status"></p>
</aside></main>
<script>{script}</script></body></html>"""

_PLAY_SCRIPT = r"""
const game = document.body.dataset.game;
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const $ = (id) => document.getElementById(id);
let view = null, revision = null, phaseKey = null;
function headers(json) {
  const h = {};
  if (token) h['Authorization'] = 'Bearer ' + token;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}
async function api(method, path, body) {
  const r = await fetch('/api/games/' + encodeURIComponent(game) + path,
                        {method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body)});
  const type = r.headers.get('content-type') || '';
  const data = type.includes('json') ? await r.json() : await r.text();
  if (!r.ok) throw new Error((data && data.error) || ('HTTP ' + r.status));
  return data;
}
function say(text, fine) { $('message').textContent = text || ''; $('message').className = fine ? 'muted' : 'error'; }
function items(list, ul, fill) {
  ul.replaceChildren(...list.map((x) => { const li = document.createElement('li'); fill(li, x); return li; }));
}
function showVerdicts(doc) {
  const lines = [...(doc.accepted || []), ...(doc.refused || [])];
  items(lines, $('verdicts'), (li, a) => {
    const ok = a.legal !== false && !a.kept;
    li.className = ok ? 'legal' : 'illegal';
    li.textContent = a.order + (a.qualified && a.qualified !== a.order ? ' (read as ' + a.qualified + ')' : '') + ': ' +
      (a.kept ? 'ILLEGAL (' + a.reason + '): not taken, ' + a.kept + ' stays' : a.legal === false ? 'ILLEGAL (' + a.reason + ')' : 'legal');
  });
}
function lines() { return $('orders').value.split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#')); }
async function refresh() {
  try {
    view = await api('GET', '');
  } catch (e) { say(e.message); return; }
  const s = view.server;
  revision = s.revision;
  if (view.next.key !== phaseKey) {
    // a new phase: what was listed, checked or typed for the last one goes
    phaseKey = view.next.key;
    $('possible').replaceChildren(); $('verdicts').replaceChildren(); delete $('orders').dataset.edited;
  }
  $('role').textContent = s.role === 'player' ? 'You play ' + s.power : s.role === 'host' ? 'You are the host' : 'Spectator';
  $('phase').textContent = view.winner ? view.winner + ' has won' : 'Step ' + view.next.step + ': ' + s.waiting_for;
  $('submitted').textContent = view.submitted.length ? view.submitted.join(', ') : 'nobody yet';
  const mine = (view.next.due || []).filter((d) => s.role !== 'player' || d.power === s.power);
  items(mine, $('duties'), (li, d) => {
    const given = d.ordered.length ? ' (' + d.ordered.length + ' given' +
      (d.units.length > d.ordered.length ? '; without an order ' + d.units.filter((u) => !d.ordered.includes(u)).join(', ') + ' hold' : '') + ')' : '';
    li.textContent = d.power + ' on ' + d.board + ': ' + (d.kind === 'orders' ? 'orders for ' + d.units.join(', ') + given
      : d.kind === 'retreat' ? d.units[0] + ' retreats to ' + (d.options.join(', ') || 'nowhere') + ' or disbands'
      : d.kind === 'build' ? 'may build ' + d.count + (d.options.length ? ' (free home centres: ' + d.options.join(', ') + ')' : ', no free home centre')
      : d.kind === 'disband' ? 'must disband ' + d.count + ' of ' + d.units.join(', ') : d.kind);
  });
  $('units').replaceChildren(...(s.role === 'player' ? mine.flatMap((d) => d.units.map((u) => {
    const b = document.createElement('button'); b.type = 'button'; b.textContent = u;
    b.addEventListener('click', () => possible(u)); return b; })) : []));
  $('ordersbox').hidden = s.role !== 'player' || !!view.winner;
  if (s.role === 'player' && document.activeElement !== $('orders') && !$('orders').dataset.edited) {
    $('orders').value = ((view.pending || {})[s.power] || []).join('\n');
  }
  $('hostbox').hidden = s.role !== 'host';
  $('players').textContent = 'Players: ' + (s.players.length ? s.players.join(', ') : 'none yet');
  $('join').hidden = s.role !== 'spectator';
  if (s.role === 'spectator') {
    const open = view.players.filter((p) => !s.players.includes(p) && !view.eliminated.includes(p));
    $('power').replaceChildren(...open.map((p) => { const o = document.createElement('option'); o.textContent = p; return o; }));
  }
  $('link').hidden = !token;
  $('mylink').value = location.href;
  $('share').hidden = s.role !== 'host';
  $('linkwhat').hidden = s.role === 'host';
  $('joinlink').value = location.origin + '/play/' + encodeURIComponent(game);
  tick();
  drawPicture();
  lastStep();
}
async function drawPicture() {
  try { $('picture').srcdoc = await api('GET', '/picture'); } catch (e) { say(e.message); }
}
async function lastStep() {
  try {
    const h = await api('GET', '/history');
    const step = h.steps[h.steps.length - 1];
    if (!step) return;
    const out = ['Step ' + step.index + ': ' + step.phase + ' on ' + step.heads.join(', ')];
    for (const r of step.results) out.push('  ' + r.power + ': ' + (r.qualified || r.order) + '  ' + r.result + (r.reason ? ' (' + r.reason + ')' : ''));
    for (const f of step.refought || []) out.push('  Fought again: ' + f.board + ' (because of ' + f.because.join('; ') + ')');
    for (const t of step.new_timelines) out.push('  New timeline ' + t.timeline + ': forked from ' + t.forked_from);
    $('last').textContent = out.join('\n');
  } catch (e) { say(e.message); }
}
async function possible(unit) {
  try {
    const d = await api('GET', '/possible?unit=' + encodeURIComponent(unit));
    items(d.orders.slice(0, 300), $('possible'), (li, o) => {
      li.textContent = o.order;
      li.addEventListener('click', () => {
        const kept = lines().filter((l) => !l.startsWith(unit + ' ') && l !== unit);
        $('orders').value = [...kept, o.order].join('\n'); $('orders').dataset.edited = '1';
      });
    });
  } catch (e) { say(e.message); }
}
function tick() {
  const d = view && view.server.deadline;
  $('deadline').textContent = d ? 'deadline in ' + Math.max(0, Math.round(d.at - Date.now() / 1000)) + ' s' : '';
}
async function act(fn) { say(''); try { await fn(); } catch (e) { say(e.message); } }
let typing = null;
$('orders').addEventListener('input', () => {
  $('orders').dataset.edited = '1';
  clearTimeout(typing);  // a verdict per line as you go: checked a moment after the last key
  typing = setTimeout(() => { if (lines().length) act(async () => showVerdicts(await api('POST', '/orders/check', {lines: lines()}))); }, 700);
});
$('check').addEventListener('click', () => act(async () => showVerdicts(await api('POST', '/orders/check', {lines: lines()}))));
$('submit').addEventListener('click', () => act(async () => {
  const d = await api('POST', '/orders', {lines: lines(), replace: true, phase: view.next.key});
  showVerdicts(d); delete $('orders').dataset.edited;
  say(d.adjudicated ? 'Everyone has submitted: the step was adjudicated.' : 'Submitted.', true);
  refresh();
}));
$('withdraw').addEventListener('click', () => act(async () => { await api('DELETE', '/orders?phase=' + encodeURIComponent(view.next.key)); refresh(); }));
$('adjudicate').addEventListener('click', () => act(async () => { await api('POST', '/adjudicate', {phase: view.next.key}); refresh(); }));
$('undo').addEventListener('click', () => act(async () => { await api('POST', '/undo', {phase: view.next.key}); refresh(); }));
$('download').addEventListener('click', () => act(async () => {
  const text = await api('GET', '/file');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], {type: 'application/yaml'}));
  a.download = 'game-' + game + '.yaml'; a.click();
}));
$('joinbtn').addEventListener('click', () => act(async () => {
  const r = await fetch('/api/games/' + encodeURIComponent(game) + '/players',
                        {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({power: $('power').value})});
  const d = await r.json();
  if (!r.ok) throw new Error(d.error);
  location.replace(d.play); location.reload();
}));
setInterval(tick, 1000);
const events = new EventSource('/api/games/' + encodeURIComponent(game) + '/events');
events.onmessage = (e) => { if (String(revision) !== e.data) refresh(); };
refresh();
"""


def home_page() -> str:
    return _HOME.format(style=_STYLE, script=_HOME_SCRIPT)


def play_page(game_id: str) -> str:
    return _PLAY.format(style=_STYLE, script=_PLAY_SCRIPT, game=html.escape(game_id, quote=True))
