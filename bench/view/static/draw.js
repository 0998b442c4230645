// Board drawings: one function per kind of board (cube, tiles, lights, sokoban), all SVG.
//
// Every drawing holds one element per state position inside an element with
// data-role="state": data-pos is the position in the puzzle's state array, data-value the value
// drawn there. The page and its tests read the displayed state back from those attributes.

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function svg(width, height, label) {
  return el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
                     "aria-label": label });
}

function text(parent, x, y, content, attrs = {}) {
  const t = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central",
                         ...attrs }, parent);
  t.textContent = content;
  return t;
}

/** Positions whose value the next move changes (highlighted). */
function changed(state, next) {
  const out = new Set();
  if (!next) return out;
  for (let i = 0; i < state.length; i++) if (state[i] !== next[i]) out.add(i);
  return out;
}

// ------------------------------------------------------------------------------------ cubes
// Faces in the state's order (Kociemba: U R F D L B, each row-major) and their colours.
const FACES = "URFDLB";
const COLOURS = ["#ffffff", "#c41e3a", "#009e60", "#ffd500", "#ff5800", "#0051ba"];
// where each face sits in the net, in face units: U on top, L F R B, D below
const NET = { U: [1, 0], L: [0, 1], F: [1, 1], R: [2, 1], B: [3, 1], D: [1, 2] };

function cubeNet(n, state, moving, turning) {
  const s = n === 2 ? 30 : 22;
  const gap = 3;
  const face = n * s + gap;
  const root = svg(4 * face + 2, 3 * face + 2, "cube net");
  const g = el("g", { "data-role": "state", transform: "translate(1,1)" }, root);
  for (let f = 0; f < 6; f++) {
    const [fx, fy] = NET[FACES[f]];
    const ox = fx * face;
    const oy = fy * face;
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const pos = f * n * n + r * n + c;
        const v = state[pos];
        el("rect", {
          x: ox + c * s, y: oy + r * s, width: s - 1, height: s - 1, rx: 2,
          fill: COLOURS[v], stroke: moving.has(pos) ? "#111" : "#444",
          "stroke-width": moving.has(pos) ? 2 : 0.8,
          "data-pos": pos, "data-value": v, class: "facelet",
        }, g);
      }
    }
    el("rect", { x: ox - 1, y: oy - 1, width: n * s + 1, height: n * s + 1, fill: "none",
                 stroke: FACES[f] === turning ? "#1f6feb" : "none", "stroke-width": 2.5 }, root);
    text(root, ox + (n * s) / 2 + 1, oy + (n * s) / 2 + 1, FACES[f],
         { "font-size": 11, fill: "#000", opacity: 0.35, "pointer-events": "none" });
  }
  return root;
}

// Isometric views: facelet corners in 3-D (x right, y up, z to the front), projected.
function faceletQuad(face, n, r, c) {
  switch (face) {
    case "U": return [[c, n, r], [c + 1, n, r], [c + 1, n, r + 1], [c, n, r + 1]];
    case "F": return [[c, n - r, n], [c + 1, n - r, n], [c + 1, n - r - 1, n], [c, n - r - 1, n]];
    case "R": return [[n, n - r, n - c], [n, n - r, n - c - 1], [n, n - r - 1, n - c - 1],
                      [n, n - r - 1, n - c]];
    case "D": return [[c, 0, n - r], [c + 1, 0, n - r], [c + 1, 0, n - r - 1], [c, 0, n - r - 1]];
    case "L": return [[0, n - r, c], [0, n - r, c + 1], [0, n - r - 1, c + 1], [0, n - r - 1, c]];
    case "B": return [[n - c, n - r, 0], [n - c - 1, n - r, 0], [n - c - 1, n - r - 1, 0],
                      [n - c, n - r - 1, 0]];
    default: return [];
  }
}

function cubeIso(n, state, back) {
  const s = n === 2 ? 30 : 21;
  const cos = Math.cos(Math.PI / 6);
  const w = Math.ceil(2 * n * cos * s) + 8;
  const h = Math.ceil(2 * n * s) + 8;
  const root = svg(w, h + 16, back ? "cube from behind" : "cube from the front");
  const g = el("g", { transform: `translate(${w / 2},${n * s + 4})` }, root);
  // the back view turns the cube half a turn about the axis (1, -1, 0): D L B come to the front
  const turn = back ? ([x, y, z]) => [n - y, n - x, n - z] : (p) => p;
  const project = ([x, y, z]) => [(x - z) * cos * s, ((x + z) / 2 - y) * s];
  const faces = back ? "DLB" : "URF";
  for (const f of faces) {
    const fi = FACES.indexOf(f);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const pts = faceletQuad(f, n, r, c).map((p) => project(turn(p)));
        el("polygon", { points: pts.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" "),
                        fill: COLOURS[state[fi * n * n + r * n + c]], stroke: "#333",
                        "stroke-width": 1, "stroke-linejoin": "round" }, g);
      }
    }
  }
  text(root, w / 2, h + 8, back ? "from behind: D L B" : "front: U F R",
       { "font-size": 11, fill: "#5d6675" });
  return root;
}

function drawCube(container, board, state, next, move) {
  const n = board.size;
  const turning = move ? move[0] : null;
  container.append(cubeIso(n, state, false), cubeIso(n, state, true),
                   cubeNet(n, state, changed(state, next), turning));
}

// ------------------------------------------------------------------------------------ tiles
function drawTiles(container, board, state, next) {
  const w = board.width;
  const s = Math.max(30, Math.min(64, Math.floor(300 / w)));
  const root = svg(w * s + 4, w * s + 4, `${w * w - 1}-puzzle`);
  const g = el("g", { "data-role": "state", transform: "translate(2,2)" }, root);
  const moving = changed(state, next);
  el("rect", { x: 0, y: 0, width: w * s, height: w * s, rx: 6, fill: "#3b4252" }, g);
  for (let pos = 0; pos < w * w; pos++) {
    const v = state[pos];
    const x = (pos % w) * s;
    const y = Math.floor(pos / w) * s;
    const cell = el("g", { "data-pos": pos, "data-value": v, class: "tile" }, g);
    if (v === 0) {
      el("rect", { x: x + 2, y: y + 2, width: s - 4, height: s - 4, rx: 5, fill: "#3b4252" }, cell);
      continue;
    }
    const home = board.goal[pos] === v;
    el("rect", { x: x + 2, y: y + 2, width: s - 4, height: s - 4, rx: 5,
                 fill: home ? "#cfe8cf" : "#f3e3c3",
                 stroke: moving.has(pos) ? "#e8590c" : "#9a8c6a",
                 "stroke-width": moving.has(pos) ? 3 : 1 }, cell);
    text(cell, x + s / 2, y + s / 2, String(v),
         { "font-size": Math.round(s * 0.42), "font-weight": "bold", fill: "#1d2330" });
  }
  container.append(root);
}

// ------------------------------------------------------------------------------- lights out
function drawLights(container, board, state, next, move, action) {
  const n = board.size;
  const s = Math.max(22, Math.min(48, Math.floor(320 / n)));
  const root = svg(n * s + 4, n * s + 4, `Lights Out ${n}x${n}`);
  const g = el("g", { "data-role": "state", transform: "translate(2,2)" }, root);
  el("rect", { x: 0, y: 0, width: n * s, height: n * s, rx: 5, fill: "#20242c" }, g);
  for (let pos = 0; pos < n * n; pos++) {
    const v = state[pos];
    const x = (pos % n) * s;
    const y = Math.floor(pos / n) * s;
    el("rect", { x: x + 3, y: y + 3, width: s - 6, height: s - 6, rx: 4,
                 fill: v ? "#ffd23f" : "#3a404c", "data-pos": pos, "data-value": v,
                 class: v ? "light on" : "light off" }, g);
    if (action === pos) {
      el("circle", { cx: x + s / 2, cy: y + s / 2, r: s * 0.3, fill: "none", stroke: "#e03131",
                     "stroke-width": 3 }, root).setAttribute("transform", "translate(2,2)");
    }
  }
  container.append(root);
}

// ---------------------------------------------------------------------------------- sokoban
// cell codes: 0 floor, 1 wall, 2 goal, 3 box, 4 box on a goal, 5 agent, 6 agent on a goal
function drawSokoban(container, board, state, next) {
  const n = board.size;
  const s = Math.max(18, Math.min(40, Math.floor(360 / n)));
  const root = svg(n * s + 4, n * s + 4, `Sokoban ${n}x${n}`);
  const g = el("g", { "data-role": "state", transform: "translate(2,2)" }, root);
  const moving = changed(state, next);
  for (let pos = 0; pos < n * n; pos++) {
    const v = state[pos];
    const x = (pos % n) * s;
    const y = Math.floor(pos / n) * s;
    const cell = el("g", { "data-pos": pos, "data-value": v }, g);
    el("rect", { x, y, width: s, height: s, fill: v === 1 ? "#5a4634" : "#ece7da",
                 stroke: v === 1 ? "#4a3a2b" : "#d9d2c0", "stroke-width": 0.6 }, cell);
    if (v === 2 || v === 4 || v === 6) {
      el("circle", { cx: x + s / 2, cy: y + s / 2, r: s * 0.16, fill: "#e03131" }, cell);
    }
    if (v === 3 || v === 4) {
      el("rect", { x: x + s * 0.14, y: y + s * 0.14, width: s * 0.72, height: s * 0.72, rx: 3,
                   fill: v === 4 ? "#37b24d" : "#c8892d", "fill-opacity": v === 4 ? 0.85 : 1,
                   stroke: moving.has(pos) ? "#1f6feb" : "#6b4a1e",
                   "stroke-width": moving.has(pos) ? 2.5 : 1 }, cell);
    }
    if (v === 5 || v === 6) {
      el("circle", { cx: x + s / 2, cy: y + s / 2, r: s * 0.32, fill: "#1f6feb",
                     stroke: "#0b3d91", "stroke-width": 1 }, cell);
    }
  }
  container.append(root);
}

const DRAW = { cube: drawCube, tiles: drawTiles, lights: drawLights, sokoban: drawSokoban };

/**
 * Draw `state` of a board into `container` (replacing what was there).
 * `next`: the state after the next move (its changes are highlighted), `move`/`action`: the
 * next move's name and action index (null at the last state).
 */
export function drawBoard(container, board, state, next, move, action) {
  container.replaceChildren();
  const draw = DRAW[board.kind];
  if (!draw) {
    container.textContent = `no drawing for ${board.kind}`;
    return;
  }
  draw(container, board, state, next, move, action);
}
