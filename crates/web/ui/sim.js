// Sim on K_n: the points on a circle, every segment a line; click an
// uncoloured segment to colour it. Hints colour the uncoloured segments'
// midpoint markers (players' segments are drawn solid red / dark blue).
import { el, hintTitle } from './api.js';

export const aiSides = ['red', 'blue'];
export const strengths = ['perfect', 'search', 'avoid', 'random'];
export function title(v) { return `Sim on K${v.n || 6}${v.misere === 'true' ? ' (misère)' : ''}`; }
export function apiParams(v, moves) {
  const q = { n: v.n || '6', moves: moves.join(',') };
  if (v.misere === 'true') q.misere = 'true';
  if (v.start) q.start = v.start;
  return q;
}
export function describe(s, v) {
  const who = side => `${side}${v.ai === side ? ' (AI)' : ''}`;
  if (s.over) return `Game over: ${who(s.winner)} wins.`;
  return `${who(s.to_move)} to move.`;
}
// The service's analysis: `value` (win/loss/draw/unknown) for the player
// to move, `decided_by` (table, search, undecided) and, when something is
// undecided, the `reason` in words.
export function valueText(h) {
  const how = { table: ' (solved table)', search: ' (exact search)' }[h.decided_by] || '';
  let s = `Value for the player to move: ${h.value}${h.remoteness != null ? ` in ${h.remoteness}` : ''}${how}.`;
  if (h.reason) s += ` ${h.reason[0].toUpperCase()}${h.reason.slice(1)}.`;
  return s;
}
// The hover text of a move: its value for the player who plays it.
function moveTitle(m) {
  if (m.colour === 'blue') return `${m.move}: undecided within the budget`;
  return hintTitle(m);
}

export function render(svg, s, hints, ctx) {
  const W = 440, c = W / 2, R = 170;
  svg.setAttribute('viewBox', `0 0 ${W} ${W}`);
  svg.textContent = '';
  const pt = i => [c + R * Math.sin(2 * Math.PI * i / s.n), c - R * Math.cos(2 * Math.PI * i / s.n)];
  const hint = {};
  if (hints && ctx.hintsOn) for (const m of hints.moves) hint[m.move] = m;
  for (const g of s.segments) {
    const [x1, y1] = pt(g.a), [x2, y2] = pt(g.b);
    const free = g.colour === 'none';
    svg.append(el('line', { x1, y1, x2, y2, class: `seg ${free ? 'free' : g.colour}`, 'data-seg': g.name, 'data-colour': g.colour }));
    if (free && !s.over) {
      const h = hint[g.name];
      // Not the midpoint: the long diagonals of K6 all cross at the centre.
      const mx = x1 + (x2 - x1) * 0.4, my = y1 + (y2 - y1) * 0.4;
      const hit = el('line', { x1, y1, x2, y2, class: 'seg hit', 'data-move': g.name }, h ? moveTitle(h) : g.name);
      hit.onclick = () => ctx.play(g.name);
      svg.append(hit);
      if (h) {
        const d = el('circle', { cx: mx, cy: my, r: 9, class: `dot ${h.colour}`, 'data-hint': g.name, 'data-colour': h.colour }, moveTitle(h));
        d.onclick = () => ctx.play(g.name);
        svg.append(d);
        if (h.remoteness != null) { const t = el('text', { x: mx, y: my + 20, class: 'remote' }); t.textContent = h.remoteness; svg.append(t); }
      }
    }
  }
  s.points.forEach((p, i) => {
    const [x, y] = pt(i);
    svg.append(el('circle', { cx: x, cy: y, r: 15, class: 'point' }));
    const t = el('text', { x, y, class: 'pointlabel' }); t.textContent = p; svg.append(t);
  });
}
