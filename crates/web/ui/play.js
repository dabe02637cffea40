// The game page: keeps the game (variant + moves) in the URL, asks the
// server for the position and its hints, and lets each game's module draw
// the board. Undo/redo/restart, a move list, a hints toggle, a solution
// loaded as the redo stack (step forward with Redo, back with Undo), and
// the AI's replies in Sim and Pentago.
import { api } from './api.js';
import * as peg from './peg.js';
import * as sim from './sim.js';
import * as pentago from './pentago.js';
import * as martello from './martello.js';
import { drawChart } from './chart.js';

const MODULES = { peg, sim, pentago, martello };
const params = new URLSearchParams(location.search);
const game = params.get('game') || 'peg';
const mod = MODULES[game];
const $ = id => document.getElementById(id);
const svg = $('board');

let moves = (params.get('moves') || '').split(',').map(s => s.trim()).filter(Boolean);
// Hints for puzzles: 'solvable'/'unsolvable'/'unknown' and the best count.
const puzzle = (value, count) => ({ value: count == null && value !== 'solvable' ? 'unknown' : value, count: count ?? null });
const martelloValue = best => best == null ? 'unknown' : best === 1 ? 'solvable' : 'unsolvable';
// A puzzle's analysis result ({solvable, best, best_proven}) as a chart point.
const resultPoint = r => puzzle(r == null || r.solvable == null ? 'unknown' : r.solvable ? 'solvable' : 'unsolvable',
  r && (r.solvable || r.best_proven) ? r.best : null);
// Every game's hints are the analysis service's answer: `value` and
// `remoteness` for two-player games, `result` for puzzles.
const gameHints = h => h.value == null || h.value === 'unknown' ? null : { value: h.value, remoteness: h.remoteness };
// How each game's answers become a point of the value-history chart.
const HISTORY = {
  sim: {
    kind: 'game', sides: ['red', 'blue'],
    fromHints: gameHints,
    fromSolve: r => ({ value: r.value, remoteness: r.remoteness }),
  },
  pentago: {
    kind: 'game', sides: ['black', 'white'],
    fromHints: gameHints,
    fromSolve: r => ({ value: r.value, remoteness: null }),
  },
  peg: {
    kind: 'puzzle', unit: 'pegs',
    fromHints: h => resultPoint(h.result),
    fromSolve: r => puzzle(r.value, r.solvable === true || r.best_proven ? r.pegs_left : null),
  },
  martello: {
    kind: 'puzzle', unit: 'stones',
    fromHints: h => resultPoint(h.result),
    fromSolve: r => puzzle(r.value === 'unknown' ? 'unknown' : martelloValue(r.min_stones), r.value === 'unknown' ? null : r.min_stones),
  },
};
const hist = HISTORY[game];
// Chart points by the moves leading to them (kept across undo and redo).
const points = new Map();
let firstSide = null;

// The point of a finished game (no hints are asked for it).
function overPoint(s) {
  if (hist.kind === 'puzzle') {
    const n = s.pegs ?? s.stones;
    return puzzle(s.solved || s.stones === 1 ? 'solvable' : 'unsolvable', n);
  }
  const value = s.winner === 'none' ? 'draw' : s.winner === s.to_move ? 'win' : 'loss';
  return { value, remoteness: 0 };
}
let redo = [];
let busy = 0;
const hintsBox = $('hints');
hintsBox.checked = params.get('hints') !== '0';

function variant() {
  const v = {};
  for (const [k, val] of params) if (k !== 'moves' && k !== 'hints') v[k] = val;
  return v;
}

function shareUrl() {
  const p = new URLSearchParams(variant());
  if (moves.length) p.set('moves', moves.join(','));
  if (!hintsBox.checked) p.set('hints', '0');
  return `/play?${p}`;
}

function status(text, cls) { const s = $('status'); s.textContent = text; s.className = cls || ''; }

export function play(move) {
  moves.push(move);
  if (redo.length && redo[0] === move) redo.shift(); else redo = [];
  refresh();
}

// The open "think longer" stream, closed when the position changes (the
// server then stops its work).
let thinking = null;
function stopThinking() {
  if (thinking) { thinking.close(); thinking = null; }
  $('think').disabled = false;
}

// Asks the server to think longer about the position (four times the
// hint's budget) and redraws the hints as its rounds decide more moves.
function thinkLonger(state, q, ctx, ticket) {
  stopThinking();
  const extra = mod.extraHintParams ? mod.extraHintParams() : {};
  const es = new EventSource(`/api/${game}/think?${new URLSearchParams({ ...q, ...extra })}`);
  thinking = es;
  $('think').disabled = true;
  status('thinking longer…');
  const here = moves.join(',');
  es.addEventListener('analysis', ev => {
    if (ticket !== busy) return stopThinking();
    const d = JSON.parse(ev.data);
    mod.render(svg, state, d.analysis, ctx);
    $('value').textContent = mod.valueText ? mod.valueText(d.analysis) : '';
    const p = hist.fromHints(d.analysis, state);
    if (p) { points.set(here, p); chart(); }
    status(`thinking longer: round ${d.round} of ${d.rounds}, ${d.decided} of ${d.analysis.moves.length} moves decided`);
  });
  es.addEventListener('done', ev => {
    const d = JSON.parse(ev.data);
    stopThinking();
    $('think').hidden = d.settled;
    status(d.settled ? 'thought longer: every move decided'
      : `thought longer: ${d.undecided} move(s) still undecided`);
  });
  es.onerror = () => {
    // A closed stream after `done` is normal; anything else is a failure.
    if (thinking === es) { stopThinking(); status('thinking longer failed', 'error'); }
  };
}

async function refresh() {
  const ticket = ++busy;
  stopThinking();
  $('think').hidden = true;
  // '1' until this position's board and hints are drawn (tests wait on it).
  svg.dataset.busy = '1';
  const url = shareUrl();
  history.replaceState(null, '', url);
  $('share').href = url;
  if (!mod) { status(`unknown game ${game}`, 'error'); return; }
  $('title').textContent = mod.title(variant());
  const q = mod.apiParams(variant(), moves);
  let state;
  try { state = await api(`/api/${game}/state`, q); }
  catch (e) { status(e.message, 'error'); svg.dataset.busy = '0'; return; }
  if (ticket !== busy) return;
  const ctx = { play, refresh, variant: variant(), moves, hintsOn: hintsBox.checked, status };
  mod.render(svg, state, null, ctx);
  renderMoves();
  if (hist.kind === 'game' && state.to_move) {
    const [a, b] = hist.sides;
    firstSide = moves.length % 2 === 0 ? state.to_move : (state.to_move === a ? b : a);
  }
  const here = moves.join(',');
  if (state.over) points.set(here, overPoint(state));
  chart();
  status(mod.describe(state, variant()));
  $('value').textContent = '';
  let hints = null;
  if (hintsBox.checked && !state.over) {
    try {
      hints = await api(`/api/${game}/hints`, { ...q, ...(mod.extraHintParams ? mod.extraHintParams() : {}) });
    } catch (e) { $('value').textContent = `hints: ${e.message}`; }
    if (ticket !== busy) return;
    if (hints) {
      mod.render(svg, state, hints, ctx);
      $('value').textContent = mod.valueText ? mod.valueText(hints) : '';
      const p = hist.fromHints(hints, state);
      if (p) points.set(here, p);
      chart();
      const open = hints.decided_by === 'undecided' || hints.moves.some(m => m.colour === 'blue');
      $('think').hidden = !open;
      $('think').onclick = () => thinkLonger(state, q, ctx, ticket);
    }
  }
  svg.dataset.ready = String(ticket);
  svg.dataset.busy = '0';
  fillHistory(ticket);
  const ai = variant().ai;
  if (ai && !state.over && state.to_move === ai && !(state.must_rotate)) {
    status(`${ai} (AI) is thinking…`);
    try {
      const r = await api(`/api/${game}/ai`, variant().strength ? { ...q, strength: variant().strength } : q);
      if (ticket === busy) play(r.move);
    } catch (e) { status(`AI: ${e.message}`, 'error'); }
  }
}

// Draws the chart of the current line (hidden with the hints: it gives
// the game away as much as they do).
function chart() {
  const box = $('chart');
  $('history').classList.toggle('hidden', !hintsBox.checked);
  const pts = [];
  for (let i = 0; i <= moves.length; i++) {
    const p = points.get(moves.slice(0, i).join(','));
    pts.push(p && hist.kind === 'game' ? { ...p, moverFirst: i % 2 === 0 } : p);
  }
  const [a, b] = hist.sides || [];
  const first = firstSide || a, second = first === a ? b : a;
  drawChart(box, pts, moves.length, {
    kind: hist.kind, unit: hist.unit, first, second,
    onPick: i => { redo = moves.slice(i).concat(redo); moves = moves.slice(0, i); if (mod.reset) mod.reset(); refresh(); },
  });
  box.dataset.points = String(pts.filter(Boolean).length);
}

// Asks the solver (small budget) for the positions of the line not charted
// yet, one at a time, while the page still shows the same position.
async function fillHistory(ticket) {
  if (!hintsBox.checked) return;
  for (let i = 0; i <= moves.length; i++) {
    const key = moves.slice(0, i).join(',');
    if (points.has(key)) continue;
    const q = mod.apiParams(variant(), moves.slice(0, i));
    delete q.place;
    let r;
    try { r = await api(`/api/${game}/solve`, { ...q, time_ms: '500' }); } catch (e) { return; }
    if (ticket !== busy) return;
    points.set(key, hist.fromSolve(r));
    chart();
  }
}

function renderMoves() {
  const ol = $('moves');
  ol.textContent = '';
  moves.forEach((m, i) => {
    const li = document.createElement('li');
    li.textContent = mod.moveLabel ? mod.moveLabel(m, i) : m;
    if (i === moves.length - 1) li.className = 'current';
    ol.append(li);
  });
}

$('undo').onclick = () => {
  if (!moves.length) return;
  // Against the AI, undo the AI's reply too, so it is the human's turn again.
  const n = variant().ai && moves.length >= 2 ? 2 : 1;
  for (let i = 0; i < n; i++) redo.unshift(moves.pop());
  if (mod.reset) mod.reset();
  refresh();
};
$('redo').onclick = () => {
  if (!redo.length) return;
  moves.push(redo.shift());
  if (mod.reset) mod.reset();
  refresh();
};
$('restart').onclick = () => { redo = []; moves = []; if (mod.reset) mod.reset(); refresh(); };
hintsBox.onchange = () => refresh();
// The AI's side and strength can change mid-game (it then plays at once
// when it is its turn).
for (const id of ['ai', 'strength']) {
  const sel = $(id);
  if (!sel) continue;
  if (!mod.aiSides) { sel.parentNode.hidden = true; continue; }
  if (id === 'ai') for (const side of ['', ...mod.aiSides]) {
    const o = document.createElement('option'); o.value = side; o.textContent = side || 'nobody'; sel.append(o);
  } else for (const st of mod.strengths) {
    const o = document.createElement('option'); o.value = st; o.textContent = st; sel.append(o);
  }
  sel.value = params.get(id) || (id === 'strength' ? mod.strengths[0] : '');
  sel.onchange = () => {
    if (sel.value) params.set(id, sel.value); else params.delete(id);
    refresh();
  };
}
$('solution').onclick = async () => {
  status('solving…');
  try {
    const r = await api(`/api/${game}/solve`, mod.apiParams(variant(), moves));
    const line = mod.solutionLine ? mod.solutionLine(r) : (r.line || []);
    if (!line.length) { status(`solution: ${r.value} (no line to show)`); return; }
    redo = line;
    status(`solution (${r.value}): ${line.length} moves loaded — step with Redo, back with Undo`);
    $('value').textContent = `solution: ${line.map((m, i) => mod.moveLabel ? mod.moveLabel(m, i) : m).join(' ')}`;
  } catch (e) { status(e.message, 'error'); }
};

refresh();
