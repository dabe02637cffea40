// Calls the JSON API; errors (`{"error": ...}`) become exceptions with that
// message, put in words a player reads (never the server's raw text).
// A busy solver (HTTP 503) is asked again a few times. While a request
// runs, the page's spinner (#spinner) says what is being computed: it
// shows 120 ms after the request starts, so a quick answer does not flash.
export async function api(path, params, what) {
  const url = params ? `${path}?${new URLSearchParams(params)}` : path;
  const token = {};
  working.set(token, what || whatOf(path));
  spinner();
  try {
    let r = await fetch(url);
    for (let i = 0; i < 8 && r.status === 503; i++) {
      await new Promise(ok => setTimeout(ok, 500));
      r = await fetch(url);
    }
    const body = await r.json().catch(() => null);
    if (!r.ok) {
      const e = new Error(friendly(body && body.error, r.status));
      e.raw = body && body.error;
      throw e;
    }
    if (body === null) throw new Error(`the server's answer could not be read (HTTP ${r.status})`);
    return body;
  } catch (e) {
    if (e instanceof TypeError) throw new Error('the server cannot be reached; is `endgame serve` running?');
    throw e;
  } finally {
    working.delete(token);
    spinner();
  }
}

// What a route computes, for the spinner.
function whatOf(path) {
  const last = path.split('/').pop();
  return { state: 'loading the position', hints: 'computing the hints', solve: 'solving', ai: 'the AI is thinking' }[last] || 'loading';
}

const working = new Map();
let spinTimer = null;
function spinner() {
  const sp = typeof document !== 'undefined' && document.getElementById('spinner');
  if (!sp) return;
  if (!working.size) { clearTimeout(spinTimer); spinTimer = null; sp.hidden = true; return; }
  sp.querySelector('.what').textContent = `${[...new Set(working.values())].join(', ')}…`;
  if (sp.hidden && !spinTimer) {
    spinTimer = setTimeout(() => { spinTimer = null; if (working.size) sp.hidden = false; }, 120);
  }
}

// The server's error in a player's words: the query-string errors of the
// web framework ("Failed to deserialize query string: seed: 'x': invalid
// digit found in string") become "seed 'x' is not a whole number".
export function friendly(msg, status) {
  if (!msg) return status === 404 ? 'not found on the server' : `the server could not answer (HTTP ${status})`;
  const m = /^Failed to deserialize query string:\s*(?:(\w+):\s*)?(?:'([^']*)':\s*)?(.*)$/s.exec(msg);
  if (m) {
    const [, name, value, why] = m;
    const reason = /invalid digit/.test(why) ? 'is not a whole number'
      : /too large|too small/.test(why) ? 'is out of range'
        : /invalid float|invalid type/.test(why) ? 'is not a number'
          : /provided string was not `true` or `false`|bool/.test(why) ? 'must be true or false'
            : /unknown field `(\w+)`/.test(why) ? `names a setting this page does not know (${/unknown field `(\w+)`/.exec(why)[1]})`
              : 'is not valid';
    if (name) return `the setting ${name}${value !== undefined ? ` = "${value}"` : ''} ${reason}`;
    return `a setting of the link ${reason}`;
  }
  return msg;
}

export const SVG = 'http://www.w3.org/2000/svg';

// Makes an SVG element with attributes (class, data-* …) and an optional title (hover text).
export function el(tag, attrs = {}, title) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (title) { const t = document.createElementNS(SVG, 'title'); t.textContent = title; e.append(t); }
  return e;
}

// The hint palette: green keeps the win / the goal, yellow a draw (or the
// best result of a puzzle already lost), red loses, blue undecided. Every
// hint carries a glyph as well as its colour (colour-blind safe) and its
// remoteness when known: "W3" wins in 3, "L", "D", "?".
export const GLYPH = { green: 'W', yellow: 'D', red: 'L', blue: '?', none: '·' };
export function hintText(h) {
  if (!h) return '';
  const r = h.remoteness;
  return `${GLYPH[h.colour] || '?'}${r === null || r === undefined || h.colour === 'blue' ? '' : r}`;
}

// A hint marker: a white disc with a ring of the hint's colour and its
// glyph and remoteness inside, so it never reads as a piece (pieces are
// filled, hints are rings). `attrs` go on the group (data-move …).
export function hintMark(x, y, h, r, attrs, title) {
  const colour = h ? h.colour : 'none';
  const text = hintText(h);
  const g = el('g', { class: `hintmark ${colour}`, 'data-colour': h ? h.colour : '', ...attrs }, title);
  // A ring for one or two characters, a pill for more.
  const fs = Math.round(r * 0.95), w = Math.max(2 * r, text.length * fs * 0.62 + 10);
  g.append(el('rect', { x: x - w / 2, y: y - r, width: w, height: 2 * r, rx: r, class: 'ring' }));
  const t = el('text', { x, y, class: 'glyph', 'font-size': fs });
  t.textContent = text;
  g.append(t);
  return g;
}

// Picks for each marker the first of its candidate spots whose box (`gap`:
// [width, height], or one number for both) overlaps no marker placed so
// far (else the spot farthest from them): markers never overlap while
// there is room.
export function placeApart(cands, gap, taken = []) {
  const [w, h] = Array.isArray(gap) ? gap : [gap, gap];
  const placed = [...taken];
  return cands.map(list => {
    let best = list[0], bestD = -1;
    for (const p of list) {
      if (placed.every(q => Math.abs(p[0] - q[0]) >= w || Math.abs(p[1] - q[1]) >= h)) { best = p; break; }
      const d = Math.min(Infinity, ...placed.map(q => Math.max(Math.abs(p[0] - q[0]) / w, Math.abs(p[1] - q[1]) / h)));
      if (d > bestD) { best = p; bestD = d; }
    }
    placed.push(best);
    return best;
  });
}

// The hover text of a hint: value and remoteness (or the result of a puzzle move).
export function hintTitle(h) {
  if (!h) return '';
  let s = `${h.move ?? h.op}: ${h.value}`;
  if (h.remoteness !== undefined && h.remoteness !== null) s += ` in ${h.remoteness}`;
  return s;
}
