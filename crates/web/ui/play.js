// The game page: keeps the game (variant + moves) in the URL, asks the
// server for the position and its hints, and lets each game's module draw
// the board. Undo/redo/restart, a move list, a hints toggle, a solution
// loaded as the redo stack (step forward with Redo, back with Undo), and
// the AI's replies in Sim and Pentago (asked at once, in one request: the
// AI's own position gets no hints). Every request shows the spinner.
// Browser history: each move is a history entry, so Back undoes and
// Forward redoes; ←/→ undo and redo, `h` shows or hides the hints.
// A link that cannot be played as it is (unknown game, bad setting, an
// illegal move) opens what it can and says what it left out.
import { api } from './api.js';
import * as peg from './peg.js';
import * as sim from './sim.js';
import * as pentago from './pentago.js';
import * as martello from './martello.js';
import { drawChart } from './chart.js';

const MODULES = { peg, sim, pentago, martello };
let params = new URLSearchParams(location.search);
const game = params.get('game') || 'peg';
const mod = Object.hasOwn(MODULES, game) ? MODULES[game] : null;
const GAME_NAMES = { peg: 'peg solitaire', sim: 'Sim', pentago: 'Pentago', martello: 'Martello' };
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
const hist = HISTORY[game] || HISTORY.peg;
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

// A message about the link (what could not be opened), kept until closed
// or the next move.
function notice(text, links) {
  const n = $('notice');
  n.textContent = '';
  if (!text) { n.hidden = true; return; }
  n.append(text);
  for (const [href, label] of links || []) { const a = document.createElement('a'); a.href = href; a.textContent = label; n.append(' ', a); }
  const x = document.createElement('button'); x.textContent = '×'; x.title = 'Close'; x.className = 'close';
  x.onclick = () => notice(null);
  n.append(' ', x);
  n.hidden = false;
}

// `nav`: how the browser's history follows: 'push' a new entry (a move:
// Back undoes it), 'replace' the current one, 'none' (the URL is already
// the entry's, after Back / Forward).
export function play(move, nav = 'push') {
  moves.push(move);
  if (redo.length && redo[0] === move) redo.shift(); else redo = [];
  if (nav === 'push') notice(null);
  refresh(nav);
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

// The browser history entry of the position shown: `moves` and `prev`
// (the moves of the entry before it, so Undo can go Back instead).
function remember(url, nav) {
  const here = moves.join(',');
  if (nav === 'push' && url !== location.pathname + location.search) {
    history.pushState({ moves: here, prev: (history.state && history.state.moves) ?? movesOfUrl() }, '', url);
  } else if (nav !== 'none') {
    history.replaceState({ moves: here, prev: history.state && history.state.prev }, '', url);
  }
}
const movesOfUrl = () => new URLSearchParams(location.search).get('moves') || '';
const split = t => (t || '').split(',').map(s => s.trim()).filter(Boolean);

// A link whose position cannot be reached: if its first moves are legal,
// play those and name the first illegal one; if even the start is
// refused (a bad setting), open a new game of the same kind instead.
async function recover(err, ticket) {
  let lo = 0, hi = moves.length; // the state after `lo` moves is legal; after `hi` not (or unknown)
  let ok = false;
  try { await api(`/api/${game}/state`, mod.apiParams(variant(), [])); ok = true; } catch (e) { /* the variant itself */ }
  if (ticket !== busy) return;
  if (ok && moves.length) {
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      try { await api(`/api/${game}/state`, mod.apiParams(variant(), moves.slice(0, mid))); lo = mid; } catch (e) { hi = mid; }
      if (ticket !== busy) return;
    }
    let why = err.message;
    if (hi !== moves.length) {
      try { await api(`/api/${game}/state`, mod.apiParams(variant(), moves.slice(0, hi))); } catch (e) { why = e.message; }
    }
    const bad = moves[lo];
    const name = mod.moveLabel && game === 'martello' ? `the board ${bad}` : bad;
    notice(`This link's move ${lo + 1} (${name}) cannot be played here: ${why}. Showing the ${lo} move(s) before it.`);
    moves = moves.slice(0, lo);
    redo = [];
    return refresh('replace');
  }
  if (ok) { notice(`This position cannot be shown: ${err.message}.`); return; }
  // The settings are wrong: keep the game, drop the rest.
  const kept = new URLSearchParams({ game });
  if (!hintsBox.checked) kept.set('hints', '0');
  if ([...params.keys()].some(k => !kept.has(k))) {
    notice(`This link's settings cannot be played: ${err.message}. Here is a new game of ${GAME_NAMES[game]} instead.`,
      [['/', 'Choose another game']]);
    params = kept;
    moves = [];
    redo = [];
    return refresh('replace');
  }
  status(`The position cannot be loaded: ${err.message}.`, 'error');
  svg.dataset.busy = '0';
}

async function refresh(nav = 'replace') {
  const ticket = ++busy;
  stopThinking();
  $('think').hidden = true;
  // '1' until this position's board and hints are drawn (tests wait on it).
  svg.dataset.busy = '1';
  const url = shareUrl();
  remember(url, nav);
  $('share').href = url;
  $('title').textContent = mod.title(variant());
  const q = mod.apiParams(variant(), moves);
  let state;
  try { state = await api(`/api/${game}/state`, q, 'loading the position'); }
  catch (e) {
    if (ticket !== busy) return;
    return recover(e, ticket);
  }
  if (ticket !== busy) return;
  const ctx = { play, refresh, variant: variant(), moves, hintsOn: hintsBox.checked, status };
  if (hist.kind === 'game' && state.to_move) {
    const [a, b] = hist.sides;
    firstSide = moves.length % 2 === 0 ? state.to_move : (state.to_move === a ? b : a);
  }
  mod.render(svg, state, null, ctx);
  renderMoves();
  if (mod.nameMoves) {
    mod.nameMoves(variant(), moves).then(changed => {
      if (changed && ticket === busy) { renderMoves(); if (svg.dataset.busy === '0') mod.render(svg, state, lastHints, ctx); }
    });
  }
  const here = moves.join(',');
  if (state.over) points.set(here, overPoint(state));
  chart();
  status(mod.describe(state, variant()));
  $('value').textContent = '';
  let hints = null;
  lastHints = null;
  const ai = variant().ai;
  const aiTurn = ai && !state.over && state.to_move === ai && !state.must_rotate;
  if (aiTurn) {
    // The AI's position: no hints, no history, straight to the AI.
    svg.dataset.busy = '0';
    status(`${ai} (AI) is thinking…`);
    try {
      const r = await api(`/api/${game}/ai`, variant().strength ? { ...q, strength: variant().strength } : q, `the AI (${ai}) is choosing its move`);
      if (ticket === busy) play(r.move, 'replace');
    } catch (e) { if (ticket === busy) status(`The AI could not move: ${e.message}.`, 'error'); }
    return;
  }
  if (hintsBox.checked && !state.over) {
    try {
      hints = await api(`/api/${game}/hints`, { ...q, ...(mod.extraHintParams ? mod.extraHintParams() : {}) }, 'computing the hints');
    } catch (e) { if (ticket === busy) $('value').textContent = `No hints: ${e.message}.`; }
    if (ticket !== busy) return;
    if (hints) {
      lastHints = hints;
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
}
let lastHints = null;

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
    onPick: jump,
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
    try { r = await api(`/api/${game}/solve`, { ...q, time_ms: '500' }, 'filling in the value history'); } catch (e) { return; }
    if (ticket !== busy) return;
    points.set(key, hist.fromSolve(r));
    chart();
  }
}

// Goes to the position after `i` moves of the line (the rest stays on Redo).
function jump(i) {
  if (i === moves.length) return;
  if (i < moves.length) { redo = moves.slice(i).concat(redo); moves = moves.slice(0, i); }
  else { const more = redo.slice(0, i - moves.length); moves = moves.concat(more); redo = redo.slice(more.length); }
  if (mod.reset) mod.reset();
  refresh('push');
}

// Who plays move i (two-player games), with "(AI)" when the AI plays that side.
function mover(i) {
  if (hist.kind !== 'game' || !firstSide) return '';
  const [a, b] = hist.sides, second = firstSide === a ? b : a;
  const side = i % 2 === 0 ? firstSide : second;
  return `${side}${variant().ai === side ? ' (AI)' : ''}`;
}

// The move list: each move in the game's notation, who played it, a
// button back to the position after it; the moves on Redo after them, dimmed.
function renderMoves() {
  const ol = $('moves');
  ol.textContent = '';
  const line = moves.concat(redo);
  line.forEach((m, i) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.className = 'mv';
    b.dataset.index = String(i + 1);
    const who = mover(i);
    const label = mod.moveLabel ? mod.moveLabel(m, i, line, variant()) : m;
    b.textContent = who ? `${who}: ${label}` : label;
    b.title = `go to the position after move ${i + 1}`;
    b.onclick = () => jump(i + 1);
    if (i === moves.length - 1) li.className = 'current';
    if (i >= moves.length) li.className = 'future';
    li.append(b);
    ol.append(li);
  });
  const cur = ol.querySelector('li.current');
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
}

function undo() {
  if (!moves.length) return;
  // Against the AI, undo the AI's reply too, so it is the human's turn again.
  const n = variant().ai && moves.length >= 2 ? 2 : 1;
  const target = moves.slice(0, moves.length - n).join(',');
  if (history.state && history.state.moves === moves.join(',') && history.state.prev === target) { history.back(); return; }
  for (let i = 0; i < n; i++) redo.unshift(moves.pop());
  if (mod.reset) mod.reset();
  refresh('replace');
}
function redoOne() {
  if (!redo.length) return;
  moves.push(redo.shift());
  if (mod.reset) mod.reset();
  refresh('push');
}

// Back / Forward: the entry's moves; what was undone goes on Redo.
window.addEventListener('popstate', () => {
  const now = split(movesOfUrl());
  const old = moves;
  const same = (a, b, n) => a.slice(0, n).join(',') === b.slice(0, n).join(',');
  if (now.length <= old.length && same(now, old, now.length)) redo = old.slice(now.length).concat(redo);
  else if (same(old, now, old.length) && same(now.slice(old.length), redo, now.length - old.length)) redo = redo.slice(now.length - old.length);
  else redo = [];
  moves = now;
  hintsBox.checked = new URLSearchParams(location.search).get('hints') !== '0';
  if (mod.reset) mod.reset();
  refresh('none');
});

function setup() {
  $('undo').onclick = undo;
  $('redo').onclick = redoOne;
  $('restart').onclick = () => { redo = []; moves = []; if (mod.reset) mod.reset(); refresh('push'); };
  hintsBox.onchange = () => refresh();
  document.addEventListener('keydown', e => {
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    if (e.key === 'ArrowLeft') { e.preventDefault(); undo(); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); redoOne(); }
    else if (e.key === 'h' || e.key === 'H') { hintsBox.checked = !hintsBox.checked; refresh(); }
  });
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
    const want = params.get(id);
    const known = [...sel.options].map(o => o.value);
    if (want !== null && !known.includes(want)) {
      notice(`This link's ${id} "${want}" is not one of ${known.filter(Boolean).join(', ')}; ignored.`);
      params.delete(id);
    }
    sel.value = params.get(id) || (id === 'strength' ? mod.strengths[0] : '');
    sel.onchange = () => {
      if (sel.value) params.set(id, sel.value); else params.delete(id);
      refresh();
    };
  }
}

$('solution').onclick = async () => {
  status('solving…');
  try {
    const r = await api(`/api/${game}/solve`, mod.apiParams(variant(), moves), 'looking for a solution');
    const line = mod.solutionLine ? mod.solutionLine(r) : (r.line || []);
    if (!line.length) { status(`solution: ${r.value} (no line to show)`); return; }
    redo = line;
    renderMoves();
    status(`solution (${r.value}): ${line.length} moves loaded — step with Redo, back with Undo`);
    $('value').textContent = `solution: ${line.map((m, i) => mod.moveLabel ? mod.moveLabel(m, i) : m).join(' ')}`;
  } catch (e) { status(`No solution: ${e.message}.`, 'error'); }
};

if (mod) {
  setup();
  history.replaceState({ moves: moves.join(','), prev: null }, '', location.href);
  refresh('replace');
} else {
  // Not a game of this workbench: say so, and offer the four games.
  document.querySelector('main.play').classList.add('nogame');
  $('title').textContent = '';
  svg.dataset.busy = '0';
  notice(`There is no game called "${game}" here. Play one of these:`,
    Object.entries(GAME_NAMES).map(([g, name]) => [`/play?game=${g}`, name]).concat([['/', 'the start page']]));
  for (const id of ['undo', 'redo', 'restart', 'solution', 'hints']) $(id).disabled = true;
}
