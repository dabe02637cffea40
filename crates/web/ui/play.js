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

const MODULES = { peg, sim, pentago, martello };
const params = new URLSearchParams(location.search);
const game = params.get('game') || 'peg';
const mod = MODULES[game];
const $ = id => document.getElementById(id);
const svg = $('board');

let moves = (params.get('moves') || '').split(',').map(s => s.trim()).filter(Boolean);
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

async function refresh() {
  const ticket = ++busy;
  const url = shareUrl();
  history.replaceState(null, '', url);
  $('share').href = url;
  if (!mod) { status(`unknown game ${game}`, 'error'); return; }
  $('title').textContent = mod.title(variant());
  const q = mod.apiParams(variant(), moves);
  let state;
  try { state = await api(`/api/${game}/state`, q); }
  catch (e) { status(e.message, 'error'); return; }
  if (ticket !== busy) return;
  const ctx = { play, refresh, variant: variant(), moves, hintsOn: hintsBox.checked, status };
  mod.render(svg, state, null, ctx);
  renderMoves();
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
    }
  }
  svg.dataset.ready = String(ticket);
  const ai = variant().ai;
  if (ai && !state.over && state.to_move === ai && !(state.must_rotate)) {
    status(`${ai} (AI) is thinking…`);
    try {
      const r = await api(`/api/${game}/ai`, variant().strength ? { ...q, strength: variant().strength } : q);
      if (ticket === busy) play(r.move);
    } catch (e) { status(`AI: ${e.message}`, 'error'); }
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
