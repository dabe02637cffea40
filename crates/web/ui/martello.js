// Martello: stones drawn with their colour AND a symbol (readable without
// colour). Click the eater, then the stone it eats (slides happen by
// themselves). Hints are arrows from eater to eaten. A move is the board
// it leads to, so the URL holds the whole line.
import { el, api, hintTitle } from './api.js';

const COLOURS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const SYMBOLS = ['●', '▲', '■', '◆', '★', '✚', '⬟', '✖'];
let selected = null;
let lastHints = null;
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
  return h.best == null ? 'Undecided within the budget.' : `Best reachable: ${h.best} stone(s) (${h.best === 1 ? 'solvable' : 'unsolvable'}).`;
}
export function moveLabel(m, i) { return `move ${i + 1}`; }
export function solutionLine(r) { return (r.line || []).slice(1); }

export function render(svg, s, hints, ctx) {
  const n = s.n, C = 70, M = 20, W = 2 * M + n * C;
  svg.setAttribute('viewBox', `0 0 ${W} ${W}`);
  svg.textContent = '';
  lastHints = hints;
  const cellOf = {};
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
    const zone = c === 0 || c === n - 1;
    svg.append(el('rect', { x: M + c * C, y: M + r * C, width: C, height: C, class: zone ? 'white-zone' : 'mid' }));
    const st = s.rows[r][c];
    if (!st) continue;
    cellOf[st.id] = [M + c * C + C / 2, M + r * C + C / 2];
    const g = el('circle', { cx: M + c * C + C / 2, cy: M + r * C + C / 2, r: C / 2 - 8, fill: COLOURS[st.colour],
      class: 'mstone' + (selected === st.id ? ' selected' : ''), 'data-stone': st.id }, `colour ${st.colour + 1}, symbol ${SYMBOLS[st.symbol]}`);
    g.onclick = () => click(st.id, svg, s, ctx);
    svg.append(g);
    const t = el('text', { x: M + c * C + C / 2, y: M + r * C + C / 2, class: 'msym' });
    t.textContent = SYMBOLS[st.symbol];
    svg.append(t);
  }
  if (hints && ctx.hintsOn) {
    for (const h of hints.hints) {
      const eat = h.real_moves.find(m => m.kind === 'eat');
      if (!eat || !cellOf[eat.stone] || !cellOf[eat.eaten]) continue;
      const [x1, y1] = cellOf[eat.stone], [x2, y2] = cellOf[eat.eaten];
      const a = el('line', { x1, y1, x2, y2, class: `hint ${h.colour}`, 'data-move': h.op, 'data-colour': h.colour, opacity: 0.7, 'pointer-events': 'none' }, hintTitle(h));
      a.onclick = () => ctx.play(h.board);
      svg.append(a);
      svg.append(el('circle', { cx: x2 + (x1 - x2) * 0.25, cy: y2 + (y1 - y2) * 0.25, r: 6, class: `dot ${h.colour}`, 'pointer-events': 'none' }));
    }
  }
}

async function click(id, svg, s, ctx) {
  if (selected === null || selected === id) { selected = selected === id ? null : id; render(svg, s, lastHints, ctx); return; }
  const eater = selected; selected = null;
  let hints = lastHints;
  if (!hints) {
    try { hints = await api('/api/martello/hints', apiParams(ctx.variant, ctx.moves)); } catch (e) { ctx.status(e.message, 'error'); return; }
  }
  const h = hints.hints.find(h => h.real_moves.some(m => m.kind === 'eat' && m.stone === eater && m.eaten === id));
  if (h) ctx.play(h.board); else { ctx.status('That stone cannot eat that one.', 'error'); render(svg, s, lastHints, ctx); }
}
