// The lab page: every experiment with its runs (from /api/lab); a run's
// report (notes, tables, and the lab's own SVG plots) below. The run shown
// is in the URL (?run=ID) so it can be shared.
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
    for (const c of r) row.append(c instanceof Node ? h('td').appendChild(c).parentNode : h('td', {}, c));
    t.append(row);
  }
  return t;
}

async function overview() {
  let r;
  try { r = await api('/api/lab'); }
  catch (e) { $('experiments').append(h('p', { class: 'error' }, e.message)); return; }
  $('db').textContent = `Store: ${r.db} — ${r.runs} run(s).`;
  // Experiments with runs first, the others after (in the lab's order).
  const exps = [...r.experiments.filter(e => e.runs.length), ...r.experiments.filter(e => !e.runs.length)];
  for (const e of exps) {
    const sec = h('div', { class: 'card experiment', 'data-experiment': e.name });
    sec.append(h('h2', {}, e.name), h('p', {}, `${e.game}: ${e.description}`));
    if (!e.runs.length) { sec.append(h('p', { class: 'muted' }, 'No runs yet (endgame lab run ' + e.name + ').')); }
    else {
      const rows = e.runs.map(run => {
        const a = h('a', { href: `/lab?run=${run.id}`, 'data-run': run.id }, `run ${run.id}`);
        a.onclick = ev => { ev.preventDefault(); show(run.id); };
        return [a, run.params, String(run.seed), `${run.units_done}/${run.units}`, run.started_at, run.finished_at || 'running'];
      });
      sec.append(table(['run', 'parameters', 'seed', 'units', 'started', 'finished'], rows));
    }
    $('experiments').append(sec);
  }
}

async function show(id) {
  history.replaceState(null, '', `/lab?run=${id}`);
  const box = $('report');
  box.textContent = 'loading…';
  let r;
  try { r = await api(`/api/lab/runs/${id}`); }
  catch (e) { box.textContent = ''; box.append(h('p', { class: 'error' }, e.message)); return; }
  box.textContent = '';
  const rep = r.report;
  const card = h('div', { class: 'card', 'data-report': id });
  card.append(h('h2', {}, `Run ${rep.run}: ${rep.experiment}`),
    h('p', {}, `parameters ${rep.params}, seed ${rep.seed}, ${rep.units_done}/${rep.units_total} units, ${r.run.code_version} on ${r.run.machine}`));
  for (const n of rep.notes) card.append(h('p', { class: 'note' }, n));
  for (const t of rep.tables) { card.append(h('h3', {}, t.title), table(t.columns, t.rows)); }
  for (const url of r.plot_urls) {
    const img = h('img', { src: url, class: 'plot', alt: url.split('/').pop() });
    card.append(img);
  }
  box.append(card);
  card.scrollIntoView({ block: 'start' });
}

await overview();
const run = new URLSearchParams(location.search).get('run');
if (run) show(run);
