// The lab page: every experiment the binary knows (/api/lab/experiments,
// no store needed) with its runs from the results store (/api/lab) and a
// form to start a small run (POST /api/lab/runs, capped by the server).
// A run's report (parameters as a table, notes, tables, the lab's own SVG
// plots) opens in place, inside its experiment's card; rows that name a
// position (a peg single-vacancy problem) link to it in the player. The
// run shown is in the URL (?run=ID) so it can be shared.
import { api } from './api.js';

const $ = id => document.getElementById(id);
const h = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};

function table(columns, rows, cls) {
  const t = h('table', { class: cls || 'data' });
  const tr = h('tr');
  for (const c of columns) tr.append(h('th', {}, c));
  t.append(tr);
  for (const r of rows) {
    const row = h('tr');
    for (const c of r) { const td = h('td'); if (c instanceof Node) td.append(c); else td.textContent = c; row.append(td); }
    t.append(row);
  }
  return t;
}

// A run's parameters (canonical JSON) as a two-column table.
function paramTable(json, seed) {
  let p = {};
  try { p = JSON.parse(json); } catch { p = { params: json }; }
  const rows = Object.entries(p).map(([k, v]) => [k, String(v)]);
  if (seed !== undefined) rows.push(['seed', String(seed)]);
  const t = table(['parameter', 'value'], rows, 'data params');
  return t;
}

let experiments = [];   // from /api/lab/experiments
let store = null;       // /api/lab (null without a store)
let caps = null;

async function load() {
  const known = await api('/api/lab/experiments');
  experiments = known.experiments;
  caps = known.web_caps;
  try { store = await api('/api/lab'); } catch { store = null; }
  $('db').textContent = store
    ? `Store: ${store.db} — ${store.runs} run(s).`
    : 'No results store is open: the experiments below are the ones this binary knows. Start the server with `endgame serve --db endgame.db` (after `endgame lab run …`) to see runs and start new ones.';
  draw();
}

function runsOf(name) {
  if (!store) return [];
  const e = store.experiments.find(x => x.name === name);
  return e ? e.runs : [];
}

function draw() {
  const box = $('experiments');
  box.textContent = '';
  const withRuns = experiments.filter(e => runsOf(e.name).length);
  const order = [...withRuns, ...experiments.filter(e => !runsOf(e.name).length)];
  for (const e of order) box.append(card(e));
  // Runs of experiments this build no longer knows.
  for (const e of store ? store.experiments.filter(x => !experiments.some(k => k.name === x.name)) : []) box.append(card({ ...e, params: [] }));
}

function card(e) {
  const sec = h('div', { class: 'card experiment', 'data-experiment': e.name });
  sec.append(h('h2', {}, e.name), h('p', {}, `${e.game}: ${e.description}`));
  const runs = runsOf(e.name);
  if (!runs.length) sec.append(h('p', { class: 'muted' }, `No runs yet (endgame lab run ${e.name}).`));
  else {
    const rows = runs.map(run => {
      const a = h('a', { href: `/lab?run=${run.id}`, 'data-run': run.id }, `run ${run.id}`);
      a.onclick = ev => { ev.preventDefault(); show(run.id); };
      const done = run.finished_at ? run.finished_at : `running (${run.units_done}/${run.units})`;
      return [a, paramTable(run.params, run.seed), `${run.units_done}/${run.units}`, run.started_at, done];
    });
    sec.append(table(['run', 'parameters', 'units', 'started', 'finished'], rows));
  }
  if (e.params.length) sec.append(startForm(e));
  sec.append(h('div', { class: 'report', 'data-report-of': e.name }));
  return sec;
}

// The form that starts a small run of experiment `e` (its parameters with
// their defaults, a seed); the server validates and caps it.
function startForm(e) {
  const d = h('details', { class: 'start' });
  d.append(h('summary', {}, 'Start a small run'));
  const f = h('form', { class: 'startform', 'data-start': e.name });
  for (const p of e.params) {
    const l = h('label', { title: p.help });
    l.append(`${p.name} `, h('input', { name: p.name, value: p.default, size: Math.max(4, Math.min(24, p.default.length + 2)), inputmode: p.kind === 'text' ? 'text' : 'decimal' }));
    f.append(l);
  }
  const s = h('label'); s.append('seed ', h('input', { name: 'seed', value: '1', size: 6, inputmode: 'numeric' })); f.append(s);
  f.append(h('button', { type: 'submit' }, 'Start'));
  const msg = h('p', { class: 'startmsg', role: 'status' });
  if (caps) d.append(h('p', { class: 'muted' }, `A run started here has at most ${caps.max_units} units, integer parameters ${caps.int_params}, and computes for at most ${caps.max_seconds} s on one thread (then \`endgame lab run\` with the same parameters and seed finishes it).`));
  if (!store) { f.querySelector('button').disabled = true; msg.textContent = 'Needs a results store (endgame serve --db …).'; }
  f.onsubmit = async ev => {
    ev.preventDefault();
    const params = {};
    for (const p of e.params) params[p.name] = f.elements[p.name].value.trim();
    const body = { experiment: e.name, params, seed: f.elements.seed.value.trim() };
    msg.className = 'startmsg'; msg.textContent = 'starting…';
    const r = await fetch('/api/lab/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) { msg.className = 'startmsg error'; msg.textContent = j.error; return; }
    msg.textContent = `run ${j.run.id} started`;
    store = await api('/api/lab').catch(() => store);
    draw();
    show(j.run.id);
  };
  d.append(f, msg);
  return d;
}

// Player links for report rows that name a position: a peg single-vacancy
// problem (vacate, finish) on the run's board opens that start position.
async function positionLinks(rep, tbl, t) {
  const vi = t.columns.indexOf('vacate'), fi = t.columns.indexOf('finish');
  if (rep.experiment !== 'peg-single-vacancy' || vi < 0) return;
  let board = 'english';
  try { board = JSON.parse(rep.params).board || board; } catch { /* the default */ }
  let st;
  try { st = await api('/api/peg/state', { board }); } catch { return; }
  // The position notation: rows of holes (by y), `o` peg, `.` hole.
  const start = hole => {
    const rows = [];
    let y = null;
    for (const x of st.holes) { if (x.y !== y) { rows.push(''); y = x.y; } rows[rows.length - 1] += x.name === hole ? '.' : 'o'; }
    return rows.join('/');
  };
  [...tbl.querySelectorAll('tr')].slice(1).forEach((tr, i) => {
    const row = t.rows[i], td = tr.children[vi];
    const q = new URLSearchParams({ game: 'peg', board, start: start(row[vi]), finish: fi >= 0 && row[fi] !== 'any' ? row[fi] : 'any' });
    const a = h('a', { href: `/play?${q}`, 'data-position': `${row[vi]} ${fi >= 0 ? row[fi] : ''}`.trim(), title: 'open this problem in the player' }, row[vi]);
    td.textContent = ''; td.append(a);
  });
}

let shown = null;
let poll = null;
async function show(id) {
  history.replaceState(null, '', `/lab?run=${id}`);
  shown = id;
  clearTimeout(poll);
  for (const b of document.querySelectorAll('.report')) b.textContent = '';
  let r;
  try { r = await api(`/api/lab/runs/${id}`); }
  catch (e) { const b = document.querySelector('.report') || $('experiments'); b.append(h('p', { class: 'error' }, e.message)); return; }
  if (shown !== id) return;
  const rep = r.report;
  const box = document.querySelector(`.report[data-report-of="${CSS.escape(rep.experiment)}"]`) || document.querySelector('.report');
  box.textContent = '';
  const card = h('div', { class: 'runreport', 'data-report': id });
  const close = h('button', { class: 'close', type: 'button', 'aria-label': 'close the report' }, '×');
  close.onclick = () => { box.textContent = ''; shown = null; clearTimeout(poll); history.replaceState(null, '', '/lab'); };
  card.append(close, h('h3', {}, `Run ${rep.run}: ${rep.experiment}`));
  card.append(paramTable(rep.params, rep.seed));
  const going = !r.run.finished_at && (!r.job || r.job.state === 'running');
  const status = h('p', { class: 'runstatus', 'data-state': r.run.finished_at ? 'finished' : (r.job ? r.job.state : 'unfinished') });
  status.textContent = `${r.run.units_done}/${r.run.units} units stored` + (r.run.finished_at ? `, finished ${r.run.finished_at}` : going ? ', computing…' : ', not finished')
    + (r.job && r.job.message ? ` — ${r.job.message}` : '') + ` (${r.run.code_version} on ${r.run.machine})`;
  const bar = h('progress', { max: String(r.run.units || 1), value: String(r.run.units_done) });
  card.append(status, bar);
  for (const n of rep.notes) card.append(h('p', { class: 'note' }, n));
  for (const t of rep.tables) {
    const tbl = table(t.columns, t.rows);
    card.append(h('h4', {}, t.title), tbl);
    positionLinks(rep, tbl, t);
  }
  for (const url of r.plot_urls) card.append(h('img', { src: `${url}?u=${r.run.units_done}`, class: 'plot', alt: url.split('/').pop() }));
  box.append(card);
  if (!box.dataset.seen || box.dataset.seen !== String(id)) { box.dataset.seen = String(id); card.scrollIntoView({ block: 'start' }); }
  // While the run computes, ask again every second; then refresh the list.
  if (going) poll = setTimeout(() => show(id), 1000);
  else if (r.job && store && (runsOf(rep.experiment).find(x => x.id === id) || {}).finished_at !== r.run.finished_at) {
    store = await api('/api/lab').catch(() => store);
    draw();
    show(id);
  }
}

await load();
const run = new URLSearchParams(location.search).get('run');
if (run) show(Number(run));
