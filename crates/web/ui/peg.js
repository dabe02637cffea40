// Peg solitaire: any board shape (square or triangular lattice). Click a
// peg, then a highlighted hole (or click a hint arrow) to jump.
import { el } from './api.js';

let selected = null;
export function reset() { selected = null; }
export function title(v) { return `Peg solitaire — ${v.art ? 'your board' : (v.board || 'english')}`; }
export function apiParams(v, moves) {
  const q = {};
  for (const k of ['board', 'art', 'start', 'finish', 'diagonal']) if (v[k]) q[k] = v[k];
  q.moves = moves.join(',');
  return q;
}
export function describe(s) {
  if (s.solved) return `Solved! ${s.pegs} peg left.`;
  if (s.over) return `No jump left: ${s.pegs} pegs.`;
  return `${s.pegs} pegs; goal: ${s.goal}.`;
}
// The hint is the peg crate's analysis: `result` {solvable, best,
// best_proven} for the position and each move, `remoteness` (moves to the
// goal, or to the best result when the goal is lost), `colour`,
// `solutions` when counted.
function bestText(r) {
  if (!r || r.best == null) return '';
  return `; ${r.best} peg(s) at best${r.best_proven ? '' : ' found'}`;
}
export function valueText(h) {
  const r = h.result || {};
  const sol = h.solutions != null ? ` ${h.solutions} solution(s).` : '';
  if (r.solvable === true) return `This position is solvable: ${h.remoteness} move(s) to the goal.${sol}`;
  if (r.solvable === false) return `This position is unsolvable${r.best != null ? `; at best ${r.best} peg(s) left` : ''}.`;
  return `This position is undecided within the budget.${h.reason ? ' ' + h.reason : ''}`;
}
function moveTitle(m) {
  if (!m) return '';
  const r = m.result || {};
  const sol = m.solutions != null ? `, ${m.solutions} solution(s)` : '';
  if (r.solvable === true) return `${m.move}: solvable, ${m.remoteness} move(s) to the goal${sol}`;
  if (r.solvable === false) return `${m.move}: unsolvable${bestText(r)}`;
  return `${m.move}: undecided within the budget`;
}

export function render(svg, s, hints, ctx) {
  const hex = s.lattice === 'hex';
  const sx = hex ? 26 : 52, sy = hex ? 46 : 52, pad = 40;
  const xs = s.holes.map(h => h.x), ys = s.holes.map(h => h.y);
  const w = Math.max(...xs) * sx + 2 * pad, hgt = Math.max(...ys) * sy + 2 * pad;
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.textContent = '';
  const at = {};
  for (const h of s.holes) at[h.name] = [pad + h.x * sx, pad + h.y * sy, h];
  const colour = {};
  if (hints && ctx.hintsOn) for (const m of hints.moves) colour[m.move] = m;
  // Holes and pegs.
  for (const h of s.holes) {
    const [x, y] = at[h.name];
    const hole = el('circle', { cx: x, cy: y, r: 18, class: 'hole', 'data-hole': h.name });
    svg.append(hole);
    if (h.peg) {
      const p = el('circle', { cx: x, cy: y, r: 14, class: 'peg' + (selected === h.name ? ' selected' : ''), 'data-peg': h.name }, h.name);
      p.onclick = () => { selected = selected === h.name ? null : h.name; render(svg, s, hints, ctx); };
      svg.append(p);
    }
  }
  // Hint arrows: every legal jump from its peg to its landing hole.
  if (hints && ctx.hintsOn) {
    for (const m of s.moves) {
      const hm = colour[m.move];
      const [x1, y1] = at[m.from], [x2, y2] = at[m.to];
      const dx = (x2 - x1), dy = (y2 - y1), L = Math.hypot(dx, dy);
      const ux = dx / L, uy = dy / L;
      const a = el('line', { x1: x1 + ux * 8 + uy * 5, y1: y1 + uy * 8 - ux * 5, x2: x2 - ux * 12 + uy * 5, y2: y2 - uy * 12 - ux * 5,
        class: `hint ${hm ? hm.colour : 'none'}`, 'data-move': m.move, 'data-colour': hm ? hm.colour : '' }, moveTitle(hm));
      a.onclick = () => { selected = null; ctx.play(m.move); };
      svg.append(a);
      svg.append(el('circle', { cx: x2 - ux * 12 + uy * 5, cy: y2 - uy * 12 - ux * 5, r: 5, class: `dot ${hm ? hm.colour : 'none'}`, 'pointer-events': 'none' }));
    }
  }
  // Landing holes of the selected peg.
  if (selected) {
    for (const m of s.moves.filter(m => m.from === selected)) {
      const [x, y] = at[m.to];
      const t = el('circle', { cx: x, cy: y, r: 16, class: 'target', 'data-target': m.to }, m.move);
      t.onclick = () => { selected = null; ctx.play(m.move); };
      svg.append(t);
    }
  }
}
