// The home page of fivedp serve: start a game (options, or a game file), open one.
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
