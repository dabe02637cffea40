// Sim on K_n: the points on a circle, every segment a line; click an
// uncoloured segment to colour it. The players are called red and blue
// (the notation's names) but drawn in orange and purple, outside the hint
// palette: a hint is a ring with its glyph and remoteness on its
// segment, placed along it so that no two rings overlap. The last segment
// is outlined; the triangle that ends the game is marked.
import { el, hintTitle, hintMark, placeApart } from './api.js';

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

// A one-coloured triangle (the one that ended the game), as three segment names.
function triangle(s) {
  const col = {};
  for (const g of s.segments) col[`${g.a},${g.b}`] = col[`${g.b},${g.a}`] = g;
  for (let a = 0; a < s.n; a++) for (let b = a + 1; b < s.n; b++) for (let c = b + 1; c < s.n; c++) {
    const t = [col[`${a},${b}`], col[`${a},${c}`], col[`${b},${c}`]];
    if (t[0].colour !== 'none' && t.every(g => g.colour === t[0].colour)) return t;
  }
  return null;
}

export function moveLabel(m) { return m; }

export function render(svg, s, hints, ctx) {
  const W = 440, c = W / 2, R = 170;
  svg.setAttribute('viewBox', `0 0 ${W} ${W}`);
  svg.textContent = '';
  const pt = i => [c + R * Math.sin(2 * Math.PI * i / s.n), c - R * Math.cos(2 * Math.PI * i / s.n)];
  const hint = {};
  if (hints && ctx.hintsOn) for (const m of hints.moves) hint[m.move] = m;
  const last = ctx.moves.length ? ctx.moves[ctx.moves.length - 1] : null;
  const norm = name => name.split('').sort().join('');
  svg.dataset.last = last || '';
  const tri = s.over ? triangle(s) : null;
  if (tri) {
    const [p, q, r] = [tri[0].a, tri[0].b, tri[1].a === tri[0].a ? tri[1].b : tri[1].a].map(pt);
    svg.append(el('polygon', { points: [p, q, r].map(v => v.join(',')).join(' '), class: `triangle ${tri[0].colour}`,
      'data-triangle': tri.map(g => g.name).join(',') }, `the ${tri[0].colour} triangle ${tri.map(g => g.name).join(' ')}`));
  }
  const free = [];
  for (const g of s.segments) {
    const [x1, y1] = pt(g.a), [x2, y2] = pt(g.b);
    const isFree = g.colour === 'none';
    if (last && norm(last) === norm(g.name)) {
      svg.append(el('line', { x1, y1, x2, y2, class: 'seg lastseg', 'data-last': g.name }));
    }
    svg.append(el('line', { x1, y1, x2, y2, class: `seg ${isFree ? 'free' : g.colour}`, 'data-seg': g.name, 'data-colour': g.colour }));
    if (isFree && !s.over) {
      const h = hint[g.name];
      const hit = el('line', { x1, y1, x2, y2, class: 'seg hit', 'data-move': g.name }, h ? moveTitle(h) : g.name);
      hit.onclick = () => ctx.play(g.name);
      svg.append(hit);
      if (h) free.push({ g, h, x1, y1, x2, y2 });
    }
  }
  // Marker spots along each segment (not at the midpoint: the long
  // diagonals of K6 all cross at the centre), the longest segments first.
  free.sort((p, q) => Math.hypot(q.x2 - q.x1, q.y2 - q.y1) - Math.hypot(p.x2 - p.x1, p.y2 - p.y1));
  const ts = [0.4, 0.6, 0.32, 0.68, 0.5, 0.25, 0.75, 0.45, 0.55, 0.2, 0.8, 0.36, 0.64, 0.28, 0.72, 0.16, 0.84];
  // Smaller markers on the bigger graphs; the gap is the widest marker's width.
  const mr = s.n >= 8 ? 10 : s.n === 7 ? 11 : 12;
  const gap = [Math.max(2 * mr, 3 * Math.round(mr * 0.95) * 0.62 + 10) + 1.5, 2 * mr + 1.5];
  const spots = placeApart(free.map(f => ts.map(t => [f.x1 + (f.x2 - f.x1) * t, f.y1 + (f.y2 - f.y1) * t])), gap,
    s.points.map((_, i) => pt(i)).flatMap(p => [p, p]));
  free.forEach(({ g, h }, i) => {
    const d = hintMark(spots[i][0], spots[i][1], h, mr, { 'data-hint': g.name, 'data-move': g.name }, moveTitle(h));
    d.onclick = () => ctx.play(g.name);
    svg.append(d);
  });
  s.points.forEach((p, i) => {
    const [x, y] = pt(i);
    svg.append(el('circle', { cx: x, cy: y, r: 15, class: 'point' }));
    const t = el('text', { x, y, class: 'pointlabel' }); t.textContent = p; svg.append(t);
  });
}
