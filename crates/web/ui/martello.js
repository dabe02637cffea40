// Martello: stones drawn with their colour AND a symbol (readable without
// colour). Drag a stone onto the stone it eats, or click the eater then
// the eaten; slides happen by themselves and are animated (every stone
// glides from its old cell to its new one). Hints are arrows from eater to
// eaten, each drawn on its own side of the line between the two stones, so
// two stones that can eat each other show two distinct arrows. A move is
// the board it leads to, so the URL holds the whole line.
// The hints are the Martello crate's analysis: `result` {solvable, best,
// best_proven} for the position and each operation (`move`, e.g. `o:m`),
// `remoteness` (operations to the best result), `colour`, `after` (the
// board it leads to) and its `real_moves`, by which clicks find it.
import { el, api, hintMark } from './api.js';
import { arrowHeads } from './peg.js';

// Stone colours kept away from the hint palette (no green, red, yellow or
// blue stone under a hint arrow); the symbol tells them apart as well.
const COLOURS = ['#7b2cbf', '#c05a00', '#17becf', '#e377c2', '#7f7f7f', '#8c8c00', '#6b3e26', '#2b2b2b'];
const SYMBOLS = ['●', '▲', '■', '◆', '★', '✚', '⬟', '✖'];
const C = 70, M = 34, SLIDE_MS = 380;
// A stone's letter (the notation's: a + id, then A + id − 26) and back.
export const letter = id => id < 26 ? String.fromCharCode(97 + id) : String.fromCharCode(65 + id - 26);
const idOf = ch => ch >= 'a' ? ch.charCodeAt(0) - 97 : ch.charCodeAt(0) - 65 + 26;
let selected = null;
let lastHints = null;
// Where each stone was drawn last (by id), and the animation under way.
let drawnAt = {};
let anim = null;
export function reset() { selected = null; }
export function title(v) { return `Martello ${v.n || 4}×${v.n || 4}`; }
export function apiParams(v, moves) {
  const q = {};
  if (moves.length) q.board = moves[moves.length - 1];
  else if (v.board) q.board = v.board;
  else { q.n = v.n || '4'; q.seed = v.seed || '1'; }
  return q;
}
export function describe(s) { return s.stones === 1 ? 'Solved: one stone left!' : `${s.stones} stones.`; }
export function valueText(h) {
  const r = h.result || {};
  if (r.solvable === true) return `Solvable: one stone left in ${h.remoteness} operation(s).`;
  if (r.solvable === false && r.best_proven) return `Unsolvable: at best ${r.best} stone(s) left, in ${h.remoteness} operation(s).`;
  return `Undecided within the budget.${h.reason ? ' ' + h.reason : ''}`;
}
function moveTitle(m) {
  const r = m.result || {};
  if (r.solvable === true) return `${m.move}: solvable, ${m.remoteness} operation(s) to one stone`;
  if (r.solvable === false && r.best_proven) return `${m.move}: at best ${r.best} stone(s) left`;
  if (r.solvable === false) return `${m.move}: loses the goal`;
  return `${m.move}: undecided within the budget`;
}
// A move in the URL is the board it leads to; the move list names it by
// its operation (`o:m`, eater:eaten), found among the operations of the
// board before (asked with a one-node budget: only their names and boards).
const opNames = new Map();
export function moveLabel(m, i, moves, v) {
  const prev = i === 0 ? null : moves[i - 1];
  return opNames.get(`${prev ?? JSON.stringify(v)}>${m}`) || '…';
}
export async function nameMoves(v, moves) {
  let changed = false;
  for (let i = 0; i < moves.length; i++) {
    const prev = i === 0 ? null : moves[i - 1], key = `${prev ?? JSON.stringify(v)}>${moves[i]}`;
    if (opNames.has(key)) continue;
    const q = apiParams(v, moves.slice(0, i));
    let h;
    try { h = await api('/api/martello/hints', { ...q, nodes: '1' }, 'naming the moves'); } catch (e) { return changed; }
    const op = h.moves.find(o => o.after === moves[i]);
    opNames.set(key, op ? op.move : '?');
    changed = true;
  }
  return changed;
}
export function solutionLine(r) { return (r.line || []).slice(1); }

export function render(svg, s, hints, ctx) {
  const n = s.n, W = 2 * M + n * C;
  svg.setAttribute('viewBox', `0 0 ${W} ${W}`);
  svg.textContent = '';
  lastHints = hints;
  const cellOf = {};
  const now = performance.now();
  // A new board (not a redraw with hints): animate from the old cells.
  const board = s.normalised;
  if (!anim || anim.board !== board) {
    anim = { board, start: now, from: { ...drawnAt } };
  }
  const elapsed = now - anim.start;
  const next = {};
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
    const zone = c === 0 || c === n - 1;
    svg.append(el('rect', { x: M + c * C, y: M + r * C, width: C, height: C, class: zone ? 'white-zone' : 'mid' }));
  }
  // Cells as the notation's real moves name them: row, column from 0 at the top left.
  for (let i = 0; i < n; i++) {
    const a = el('text', { x: M + i * C + C / 2, y: M / 2 + 2, class: 'coord col' }); a.textContent = i; svg.append(a);
    const b = el('text', { x: M / 2, y: M + i * C + C / 2, class: 'coord row' }); b.textContent = i; svg.append(b);
  }
  // The last operation's eater (the stone that moved to eat).
  const li = ctx.moves.length - 1;
  const lastOp = li >= 0 ? opNames.get(`${li === 0 ? JSON.stringify(ctx.variant) : ctx.moves[li - 1]}>${ctx.moves[li]}`) : null;
  const lastEater = lastOp && lastOp.includes(':') ? idOf(lastOp.split(':')[0]) : null;
  svg.dataset.last = lastOp || '';
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
    const st = s.rows[r][c];
    if (!st) continue;
    const x = M + c * C + C / 2, y = M + r * C + C / 2;
    cellOf[st.id] = [x, y];
    next[st.id] = [x, y];
    const g = el('g', { class: 'mgroup', 'data-group': st.id });
    if (st.id === lastEater) svg.append(el('circle', { cx: x, cy: y, r: C / 2 - 4, class: 'last last-to', 'data-last': letter(st.id) }));
    const circle = el('circle', { cx: x, cy: y, r: C / 2 - 11, fill: COLOURS[st.colour],
      class: 'mstone' + (selected === st.id ? ' selected' : ''), 'data-stone': st.id }, `${letter(st.id)}: colour ${st.colour + 1}, symbol ${SYMBOLS[st.symbol]}`);
    const t = el('text', { x, y, class: 'msym' });
    t.textContent = SYMBOLS[st.symbol];
    g.append(circle, t);
    svg.append(g);
    const from = anim.from[st.id];
    if (from && (from[0] !== x || from[1] !== y) && elapsed < SLIDE_MS) {
      // Start at the old cell, then glide (resuming if a redraw cut in).
      // (No fill: when it ends the stone is simply at its own cell.)
      g.animate([{ transform: `translate(${from[0] - x}px, ${from[1] - y}px)` }, { transform: 'translate(0px, 0px)' }],
        { duration: SLIDE_MS, delay: -elapsed, easing: 'ease-out' });
    }
    drag(g, st.id, svg, s, ctx);
  }
  drawnAt = next;
  if (hints && ctx.hintsOn) {
    const marks = [];
    for (const h of hints.moves) {
      const eat = h.real_moves.find(m => m.kind === 'eat');
      if (!eat || !cellOf[eat.stone] || !cellOf[eat.eaten]) continue;
      const [ax, ay] = cellOf[eat.stone], [bx, by] = cellOf[eat.eaten];
      // Shift each arrow to its right-hand side: A→B and B→A part.
      const L = Math.hypot(bx - ax, by - ay), ux = (bx - ax) / L, uy = (by - ay) / L;
      const off = 13, ox = -uy * off, oy = ux * off;
      const x1 = ax + ox + ux * 12, y1 = ay + oy + uy * 12, x2 = bx + ox - ux * 18, y2 = by + oy - uy * 18;
      // A white outline under the coloured arrow, a round tail at the
      // eater, the head at the eaten, and the marker (glyph + remoteness)
      // in the gap between the two stones.
      svg.append(el('line', { x1, y1, x2, y2, class: 'hint-under', 'pointer-events': 'none' }));
      const a = el('line', { x1, y1, x2, y2, class: `hint ${h.colour}`, 'data-move': h.move, 'data-colour': h.colour,
        'data-eater': eat.stone, 'data-eaten': eat.eaten, 'pointer-events': 'none', 'marker-end': `url(#mhead-${h.colour})` }, moveTitle(h));
      svg.append(a);
      svg.append(el('circle', { cx: x1, cy: y1, r: 4, class: `tail ${h.colour}`, 'pointer-events': 'none' }));
      const f = 0.5;
      marks.push(hintMark(ax + ox + (bx - ax) * f, ay + oy + (by - ay) * f, h, 10.5, { 'data-move': h.move, 'pointer-events': 'none' }, moveTitle(h)));
    }
    svg.append(...marks);
    svg.prepend(arrowHeads('mhead', 3));
  }
}

// Pointer handling of one stone: a press and release in place is a click
// (eater, then eaten); a drag follows the pointer and, dropped on another
// stone, eats it if it can (else the stone goes back).
function drag(g, id, svg, s, ctx) {
  let start = null;
  const point = e => {
    const p = svg.createSVGPoint(); p.x = e.clientX; p.y = e.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  };
  g.addEventListener('pointerdown', e => {
    e.preventDefault();
    start = point(e);
    g.setPointerCapture(e.pointerId);
    g.style.transition = 'none';
  });
  g.addEventListener('pointermove', e => {
    if (!start) return;
    const p = point(e);
    if (Math.hypot(p.x - start.x, p.y - start.y) > 4) {
      g.classList.add('dragging');
      g.style.transform = `translate(${p.x - start.x}px, ${p.y - start.y}px)`;
    }
  });
  g.addEventListener('pointerup', e => {
    if (!start) return;
    const p = point(e), moved = Math.hypot(p.x - start.x, p.y - start.y) > 4;
    start = null;
    if (!moved) { click(id, svg, s, ctx); return; }
    const c = Math.floor((p.x - M) / C), r = Math.floor((p.y - M) / C);
    const target = s.rows[r] && s.rows[r][c];
    if (target && target.id !== id) {
      selected = id;
      // The stone stays where it was dropped: no slide back before the eat.
      drawnAt[id] = [p.x, p.y];
      click(target.id, svg, s, ctx);
    } else {
      g.style.transform = '';
      g.classList.remove('dragging');
    }
  });
}

async function click(id, svg, s, ctx) {
  if (selected === null || selected === id) { selected = selected === id ? null : id; render(svg, s, lastHints, ctx); return; }
  const eater = selected; selected = null;
  let hints = lastHints;
  if (!hints) {
    try { hints = await api('/api/martello/hints', apiParams(ctx.variant, ctx.moves)); } catch (e) { ctx.status(e.message, 'error'); return; }
  }
  const h = hints.moves.find(h => h.real_moves.some(m => m.kind === 'eat' && m.stone === eater && m.eaten === id));
  if (h) {
    const prev = ctx.moves.length ? ctx.moves[ctx.moves.length - 1] : JSON.stringify(ctx.variant);
    opNames.set(`${prev}>${h.after}`, h.move);
    ctx.play(h.after);
  } else { ctx.status('That stone cannot eat that one.', 'error'); render(svg, s, lastHints, ctx); }
}
