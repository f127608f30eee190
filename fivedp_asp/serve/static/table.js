// The table of fivedp serve (/play/GAME). Text from the server goes into the page as text
// (textContent), never as markup; the picture is drawn in a sandboxed frame (picture.js) to which
// only the picture's bytes are handed, never the token.
const game = document.body.dataset.game;
const recent = Number(document.body.dataset.recent);  // the steps played the picture shows, the last ones
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const $ = (id) => document.getElementById(id);
let view = null, revision = null, phaseKey = null, drawn = null, played = null;
let completed = null;  // the phase key this page's submission completed, until the page shows the next phase
const opened = new Set();  // the steps played whose results the player has opened

function headers(json) {
  const h = {};
  if (token) h['Authorization'] = 'Bearer ' + token;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}
async function api(method, path, body, bytes) {
  const r = await fetch('/api/games/' + encodeURIComponent(game) + path,
                        {method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body)});
  const type = r.headers.get('content-type') || '';
  const data = type.includes('json') ? await r.json() : bytes ? await r.arrayBuffer() : await r.text();
  if (!r.ok) throw new Error((data && data.error) || ('HTTP ' + r.status));
  return data;
}
function say(text, fine) { $('message').textContent = text || ''; $('message').className = fine ? 'muted' : 'error'; }
// the verdict of Check, Submit and Withdraw, beside their buttons: it holds for the phase it was given
// in, and goes when the game moves on
let verdictFor = null;
function verdict(text, fine) {
  $('verdict').textContent = text || ''; $('verdict').className = fine ? 'fine' : 'error';
  verdictFor = view ? view.next.key : null;
}
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
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

// -- the To-do ------------------------------------------------------------------------------------

function dutyText(d) {
  const given = d.ordered.length ? ' (' + d.ordered.length + ' given' +
    (d.units.length > d.ordered.length ? '; without an order ' + d.units.filter((u) => !d.ordered.includes(u)).join(', ') + ' hold' : '') + ')' : '';
  return d.power + ' on ' + d.board + ': ' + (d.kind === 'orders' ? 'orders for ' + d.units.join(', ') + given
    : d.kind === 'retreat' ? d.units[0] + ' retreats to ' + (d.options.join(', ') || 'nowhere') + ' or disbands'
    : d.kind === 'build' ? 'may build ' + d.count + (d.options.length ? ' (free home centres: ' + d.options.join(', ') + ')' : ', no free home centre')
    : d.kind === 'disband' ? 'must disband ' + d.count + ' of ' + d.units.join(', ') : d.kind);
}
function todo(s) {
  const mine = (view.next.due || []).filter((d) => s.role !== 'player' || d.power === s.power);
  // a power that may build with no free home centre has nothing to do (the server does not wait for it)
  const acting = mine.filter((d) => d.kind !== 'build' || d.options.length);
  items(mine, $('duties'), (li, d) => { li.textContent = dutyText(d); });
  $('nothing').hidden = view.winner || s.role !== 'player' || acting.length > 0;
  $('nothing').textContent = 'Nothing to do this phase: ' + s.waiting_for + '. The step is played when the others have ' +
    'submitted' + (view.server.deadline ? ' or at the deadline' : '') + '.';
  const buttons = [];
  if (s.role === 'player' && !view.winner) {
    for (const d of acting) {
      if (d.kind === 'build') {
        const b = el('button', 'Builds on ' + d.board);
        b.type = 'button'; b.title = 'list the builds and the waive the rules accept on ' + d.board;
        b.addEventListener('click', () => listPossible('kind=build&kind=waive', (o) => o.board === d.board));
        buttons.push(b);
      } else {
        for (const u of d.units) {
          const b = el('button', u);
          b.type = 'button';
          b.addEventListener('click', () => listPossible('unit=' + encodeURIComponent(u), () => true));
          buttons.push(b);
        }
      }
    }
  }
  $('units').replaceChildren(...buttons);
  $('hint').hidden = !buttons.length;
}
async function listPossible(query, keep) {
  try {
    const key = view.next.key;
    const d = await api('GET', '/possible?' + query);
    if (view.next.key !== key) return;  // the phase they were listed for is over
    const orders = d.orders.filter(keep);
    items(orders.slice(0, 300), $('possible'), (li, o) => {
      li.textContent = o.order;
      li.addEventListener('click', () => pick(o));
    });
    if (!orders.length) $('possible').replaceChildren(el('li', 'no order the rules accept', 'muted'));
  } catch (e) { say(e.message); }
}
// What a line gives an order to: its unit (A a-Par@0), or the place a build is for (build a-Par@2).
function place(text) {
  const m = /^(build\s+)?[AF]\s+([a-z][a-z0-9]*-[a-z]+)(?:\/[a-z]+)?@(\d+)/i.exec((text || '').trim());
  return m ? (m[1] ? 'build ' : '') + m[2].toLowerCase() + '@' + m[3] : null;
}
// A picked order replaces the line given earlier for its unit (or its build's place), however that
// line was written: the server reads each line (Check, nothing saved) and says which unit it names.
async function pick(o) {
  const current = lines();
  const here = o.kind === 'waive' ? null : place(o.order);
  let read = {};
  if (here && current.length) {
    try {
      const doc = await api('POST', '/orders/check', {lines: current});
      for (const a of [...(doc.accepted || []), ...(doc.refused || [])]) if (a.qualified) read[a.order] = a.qualified;
    } catch (e) { read = {}; }  // a line the server cannot read at all: compared as written
  }
  const kept = here ? current.filter((l) => place(read[l] || l) !== here) : current;
  $('orders').value = [...kept, o.order].join('\n');
  $('orders').dataset.edited = '1';
  verdict('');
}

// -- the steps played ---------------------------------------------------------------------------------

async function steps() {
  if (played === phaseKey) return;  // every step played or taken back changes the phase key
  played = phaseKey;
  let h;
  try { h = await api('GET', '/history'); } catch (e) { say(e.message); return; }
  const list = h.steps.slice().reverse();
  if (!list.length) { $('steps').replaceChildren(el('p', 'none yet', 'muted')); return; }
  $('steps').replaceChildren(...list.map((step, i) => {
    const box = el('details');
    box.open = i === 0 || opened.has(step.index);
    box.addEventListener('toggle', () => { if (box.open) opened.add(step.index); else opened.delete(step.index); });
    box.append(el('summary', 'Step ' + step.index + ': ' + step.phase + ' on ' + step.heads.join(', ')));
    const out = [];
    for (const r of step.results) out.push(r.power + ': ' + (r.qualified || r.order) + '  ' + r.result + (r.reason ? ' (' + r.reason + ')' : ''));
    for (const f of step.refought || []) out.push('Fought again: ' + f.board + ' (because of ' + f.because.join('; ') + ')');
    for (const t of step.new_timelines) out.push('New timeline ' + t.timeline + ': forked from ' + t.forked_from);
    if (!out.length) out.push('no order given');
    box.append(el('pre', out.join('\n')));
    if (step.index > h.steps.length - recent) {  // a step the picture holds
      const show = el('button', 'Show on the map');
      show.type = 'button';
      show.addEventListener('click', () => post({played: step.index}));
      box.append(show);
    }
    return box;
  }));
}

// -- the picture ------------------------------------------------------------------------------------
// Drawn again only when what it shows changed: the phase, or the player's own waiting orders; the
// frame keeps the player's zoom and pan across pictures.
let frameReady = false, waiting = null, onDrawn = null;
function post(message, transfer) { if (frameReady) $('picture').contentWindow.postMessage(message, '*', transfer || []); }
window.addEventListener('message', (e) => {
  if (e.source !== $('picture').contentWindow || !e.data) return;
  if (e.data.drawn && onDrawn) { onDrawn(); onDrawn = null; }
  if (!e.data.ready) return;
  frameReady = true;
  if (waiting !== null) { post({picture: waiting}, [waiting]); waiting = null; }
});
// the frame says when it has drawn a picture; a frame that never says so delays nothing long
function whenDrawn() { return new Promise((done) => { onDrawn = done; setTimeout(done, 5000); }); }
$('picture').contentWindow.postMessage({hello: true}, '*');
let fetching = Promise.resolve();  // the picture on its way, if one is
function drawPicture() {
  const own = view.server.power ? JSON.stringify((view.pending || {})[view.server.power] || []) : '';
  const shows = phaseKey + '|' + own;
  if (drawn === shows) return fetching;
  drawn = shows;
  fetching = (async () => {
    try {
      // its bytes, handed over to the frame rather than copied (megabytes for a big game)
      const bytes = await api('GET', '/picture?recent=' + recent, undefined, true);
      const drawing = whenDrawn();
      if (frameReady) post({picture: bytes}, [bytes]); else waiting = bytes;
      await drawing;
    } catch (e) { drawn = null; say(e.message); }
  })();
  return fetching;
}

// -- the view -------------------------------------------------------------------------------------

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
    if (completed !== null && completed !== phaseKey) {  // the phase this page completed was adjudicated
      verdict('Everyone has submitted: the step was adjudicated.', true);
    } else if (verdictFor !== phaseKey) verdict('');
    completed = null;
  }
  $('role').textContent = s.role === 'player' ? 'You play ' + s.power : s.role === 'host' ? 'You are the host' : 'Spectator';
  $('phase').textContent = view.winner ? view.winner + ' has won' : 'Step ' + view.next.step + ': ' + s.waiting_for;
  $('submitted').textContent = view.submitted.length ? view.submitted.join(', ') : 'nobody yet';
  todo(s);
  $('ordersbox').hidden = s.role !== 'player' || !!view.winner;
  if (s.role === 'player' && document.activeElement !== $('orders') && !$('orders').dataset.edited) {
    $('orders').value = ((view.pending || {})[s.power] || []).join('\n');
  }
  $('hostbox').hidden = s.role !== 'host';
  $('players').textContent = 'Players: ' + (s.players.length ? s.players.join(', ') : 'none yet');
  $('join').hidden = s.role !== 'spectator';
  if (s.role === 'spectator') {
    const open = view.players.filter((p) => !s.players.includes(p) && !view.eliminated.includes(p));
    $('power').replaceChildren(...open.map((p) => el('option', p)));
  }
  $('link').hidden = !token;
  $('mylink').value = location.href;
  $('share').hidden = s.role !== 'host';
  $('linkwhat').hidden = s.role === 'host';
  $('joinlink').value = location.origin + '/play/' + encodeURIComponent(game);
  tick();
  // the steps played (the whole history, the larger answer) asked for once the picture is drawn, so
  // that the two do not share the server, the page and the machine while the picture is on its way
  drawPicture().then(steps);
}
function tick() {
  const d = view && view.server.deadline;
  $('deadline').textContent = d ? 'deadline in ' + Math.max(0, Math.round(d.at - Date.now() / 1000)) + ' s' : '';
}
async function act(fn) { say(''); try { await fn(); } catch (e) { say(e.message); } }
// Check, Submit, Withdraw: their verdict, or why they were refused, beside their buttons
async function order(fn) { verdict(''); say(''); try { await fn(); } catch (e) { verdict(e.message); } }
let typing = null;
$('orders').addEventListener('input', () => {
  $('orders').dataset.edited = '1';
  clearTimeout(typing);  // a verdict per line as you go: checked a moment after the last key
  typing = setTimeout(() => { if (lines().length) act(async () => checked(await checking())); }, 700);
});
// the lines checked against the phase now waiting; the answer is shown only while that phase still waits
// (a step adjudicated meanwhile clears what was checked for the phase before it)
async function checking() { const key = view.next.key; return {key, doc: await api('POST', '/orders/check', {lines: lines()})}; }
function checked(c) { if (view.next.key !== c.key) return null; showVerdicts(c.doc); return c.doc; }
$('check').addEventListener('click', () => order(async () => {
  const d = checked(await checking());
  if (d === null) return;
  const bad = [...(d.accepted || []), ...(d.refused || [])].filter((a) => a.legal === false || a.kept).length;
  verdict(bad ? bad + ' illegal: see below' : 'All legal (nothing saved).', !bad);
}));
$('submit').addEventListener('click', () => order(async () => {
  clearTimeout(typing);  // the lines submitted get their verdicts from the submission
  const d = await api('POST', '/orders', {lines: lines(), replace: true, phase: view.next.key});
  showVerdicts(d); delete $('orders').dataset.edited;
  if (d.complete) {  // the server adjudicates it now; the step comes with the revision (refresh)
    verdict('Everyone has submitted: the step is being adjudicated.', true);
    completed = view.next.key;
    refresh();
  } else {
    verdict('Submitted.', true);
    refresh();
  }
}));
$('withdraw').addEventListener('click', () => order(async () => {
  await api('DELETE', '/orders?phase=' + encodeURIComponent(view.next.key));
  verdict('Withdrawn: you have not submitted.', true);
  refresh();
}));
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
