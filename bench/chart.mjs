// Draws a bench/run.mjs report as an SVG chart (bench/results/<core>.svg): one panel per
// public-API scenario (p50 latencies, throughputs, streams), a bar per runtime, and the C
// hand-off client and Triton's Python API as horizontal reference lines, each panel on its own
// linear scale from zero; then, when the report has its scaling rows, two wide panels of lines:
// throughput (linear from zero) and p99 latency (logarithmic) against concurrency 1 to 4096, a
// line per runtime and one for C. Plain Node ESM, no dependency.
import { fmt, pythonScenarios, RUNTIMES, SCALE_CONCURRENCY } from "./table.mjs";

/** [scenario, field, title, unit line]: the panels, in table order. */
export const PANELS = [
  ["latency_1x16", "p50", "latency c1, [1,16]", "p50 µs (lower is better)"],
  ["latency_8x16", "p50", "latency c1, [8,16]", "p50 µs (lower is better)"],
  ["throughput_c16_1x16", null, "throughput c16, [1,16]", "inferences/s"],
  ["throughput_c128_1x16", null, "throughput c128, [1,16]", "inferences/s"],
  ["throughput_c16_8x16", null, "throughput c16, [8,16]", "inferences/s"],
  ["throughput_c128_8x16", null, "throughput c128, [8,16]", "inferences/s"],
  ["stream_1x100000", null, "1 stream × 100,000", "responses/s"],
  ["stream_128x1000", null, "128 streams × 1,000", "responses/s"],
];

export const COLORS = { deno: "#2f6f9f", bun: "#d9822b", node: "#4f9a4f" };
export const C_LINE = "#222222";
export const PYTHON_LINE = "#8e44ad";

const COLUMNS = 4;
const PANEL_W = 250;
const PANEL_H = 226;
const PLOT = { left: 44, right: 180, top: 42, bottom: 186 }; // inside a panel
const HEADER_H = 62;

function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function text(x, y, s, attrs = "") {
  return `<text x="${x}" y="${y}" ${attrs}>${esc(s)}</text>`;
}

/** A round step for about `n` gridlines up to `max`: 1, 2 or 5 × 10^k. */
function niceStep(max, n = 4) {
  const raw = max / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}

function tick(v) {
  if (v >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(1)}`;
}

/** Gridlines and tick labels of a linear scale from zero to above `max` on `plot` (into `out`);
 * returns the scale (value → y). */
function linearScale(out, max, plot) {
  const step = niceStep(max * 1.08);
  const top = Math.ceil((max * 1.08) / step) * step;
  const ys = (v) => plot.bottom - ((plot.bottom - plot.top) * v) / top;
  for (let v = 0; v <= top + step / 2; v += step) {
    const yy = ys(v).toFixed(1);
    out.push(
      `<line x1="${plot.left}" x2="${plot.right}" y1="${yy}" y2="${yy}" stroke="#e4e4e4"/>`,
    );
    out.push(text(plot.left - 4, +yy + 3.5, tick(v), 'text-anchor="end" fill="#666"'));
  }
  return ys;
}

function value(scenario, field) {
  if (scenario === undefined || scenario === null) return undefined;
  const v = field ? scenario[field] : scenario;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** One scenario's panel, its top left corner at (x, y). */
function panel(x, y, [key, field, title, unit], report, present, py) {
  const bars = present.map((r) => [r, value(report.bindings[r].scenarios?.[key], field)]);
  const c = value(report.native?.handoff?.[key], field);
  const p = value(py?.[key], field);
  const all = [...bars.map(([, v]) => v), c, p].filter((v) => v !== undefined);
  const out = [`<g transform="translate(${x},${y})">`];
  out.push(text(PANEL_W / 2, 16, title, 'text-anchor="middle" font-weight="bold"'));
  out.push(text(PANEL_W / 2, 30, unit, 'text-anchor="middle" fill="#555"'));
  if (all.length === 0) {
    out.push(text(PANEL_W / 2, PANEL_H / 2, "no figures", 'text-anchor="middle" fill="#888"'));
    out.push("</g>");
    return out.join("\n");
  }
  const ys = linearScale(out, Math.max(...all), PLOT);
  const slot = (PLOT.right - PLOT.left) / Math.max(bars.length, 1);
  const barW = Math.min(30, slot * 0.62);
  bars.forEach(([r, v], i) => {
    const cx = PLOT.left + slot * (i + 0.5);
    out.push(text(cx, PLOT.bottom + 13, r, 'text-anchor="middle"'));
    if (v === undefined) return;
    const yy = ys(v);
    out.push(
      `<rect class="bar" data-runtime="${r}" data-value="${v}" x="${(cx - barW / 2).toFixed(1)}" ` +
        `y="${yy.toFixed(1)}" width="${barW.toFixed(1)}" height="${
          (PLOT.bottom - yy).toFixed(1)
        }" ` +
        `fill="${COLORS[r] ?? "#777"}"/>`,
    );
    out.push(text(cx, yy - 3, fmt(v), 'text-anchor="middle" font-size="9.5"'));
  });
  // Reference lines across the plot, labelled at the right; labels closer than a line of text
  // are moved apart.
  const refs = [
    ["C hand-off", "c", c, C_LINE, ""],
    ["Python API", "python", p, PYTHON_LINE, ' stroke-dasharray="5,3"'],
  ].filter(([, , v]) => v !== undefined).map((r) => [...r, ys(r[2])]);
  const labelY = refs.map((r) => r[5]);
  if (labelY.length === 2 && Math.abs(labelY[0] - labelY[1]) < 11) {
    const mid = (labelY[0] + labelY[1]) / 2;
    const up = labelY[0] <= labelY[1] ? 0 : 1;
    labelY[up] = mid - 5.5;
    labelY[1 - up] = mid + 5.5;
  }
  refs.forEach(([name, id, v, color, dash, yy], i) => {
    out.push(
      `<line class="ref" data-ref="${id}" data-value="${v}" x1="${PLOT.left}" x2="${PLOT.right}" ` +
        `y1="${yy.toFixed(1)}" y2="${yy.toFixed(1)}" stroke="${color}" stroke-width="1.6"${dash}/>`,
    );
    out.push(
      text(
        PLOT.right + 4,
        (labelY[i] + 3.5).toFixed(1),
        `${name === "C hand-off" ? "C" : "Py"} ${fmt(v)}`,
        `fill="${color}" font-size="9.5"`,
      ),
    );
  });
  out.push(
    `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}" ` +
      `stroke="#444"/>`,
  );
  out.push("</g>");
  return out.join("\n");
}

/** [field, title, unit line, logarithmic]: the scaling panels. */
export const SCALE_PANELS = [
  ["rate", "throughput by concurrency, identity [1,16]", "inferences/s", false],
  [
    "p99",
    "p99 latency by concurrency, identity [1,16]",
    "p99 µs (log scale; lower is better)",
    true,
  ],
];
const SCALE_W = 2 * PANEL_W;
const SCALE_PLOT = { left: 52, right: SCALE_W - 90, top: 42, bottom: 186 };

/** One scaling panel (a line per runtime and for C), its top left corner at (x, y). */
function scalePanel(x, y, [field, title, unit, log], report, present) {
  const series = [
    ...present.map((r) => [r, report.bindings[r].scaling, COLORS[r] ?? "#777"]),
    ["C", report.native.scaling, C_LINE],
  ].map(([name, sc, color]) => [
    name,
    SCALE_CONCURRENCY.map((n) => value(sc?.[`scale_c${n}`], field)),
    color,
  ]);
  const all = series.flatMap(([, vs]) => vs).filter((v) => v !== undefined && (!log || v > 0));
  const out = [`<g transform="translate(${x},${y})">`];
  out.push(text(SCALE_W / 2, 16, title, 'text-anchor="middle" font-weight="bold"'));
  out.push(text(SCALE_W / 2, 30, unit, 'text-anchor="middle" fill="#555"'));
  const P = SCALE_PLOT;
  const xs = (i) => P.left + ((P.right - P.left) * i) / (SCALE_CONCURRENCY.length - 1);
  let ys;
  if (log) {
    const lo = Math.floor(Math.log10(Math.min(...all)));
    const hi = Math.ceil(Math.log10(Math.max(...all)));
    const span = Math.max(hi - lo, 1);
    ys = (v) => P.bottom - ((P.bottom - P.top) * (Math.log10(v) - lo)) / span;
    for (let e = lo; e <= lo + span; e++) {
      const yy = ys(10 ** e).toFixed(1);
      out.push(`<line x1="${P.left}" x2="${P.right}" y1="${yy}" y2="${yy}" stroke="#e4e4e4"/>`);
      out.push(text(P.left - 4, +yy + 3.5, tick(10 ** e), 'text-anchor="end" fill="#666"'));
    }
  } else {
    ys = linearScale(out, Math.max(...all), P);
  }
  SCALE_CONCURRENCY.forEach((n, i) => {
    out.push(text(xs(i), P.bottom + 13, `c${n}`, 'text-anchor="middle"'));
  });
  const labels = [];
  for (const [name, vs, color] of series) {
    const points = vs.map((v, i) => [i, v]).filter(([, v]) => v !== undefined && (!log || v > 0));
    if (points.length === 0) continue;
    const id = name === "C" ? "c" : name;
    out.push(
      `<polyline class="scale" data-series="${id}" fill="none" stroke="${color}" ` +
        `stroke-width="1.8" points="${
          points.map(([i, v]) => `${xs(i).toFixed(1)},${ys(v).toFixed(1)}`).join(" ")
        }"/>`,
    );
    for (const [i, v] of points) {
      out.push(
        `<circle class="point" data-series="${id}" data-concurrency="${SCALE_CONCURRENCY[i]}" ` +
          `data-value="${v}" cx="${xs(i).toFixed(1)}" cy="${ys(v).toFixed(1)}" r="2.6" ` +
          `fill="${color}"/>`,
      );
    }
    const [li, lv] = points.at(-1);
    labels.push({ x: xs(li) + 6, y: ys(lv), label: `${name} ${fmt(lv)}`, color });
  }
  // The lines' end labels, top to bottom, at least a line of text apart.
  labels.sort((a, b) => a.y - b.y);
  for (let i = 1; i < labels.length; i++) {
    labels[i].y = Math.max(labels[i].y, labels[i - 1].y + 11);
  }
  for (const { x: lx, y: ly, label, color } of labels) {
    out.push(text(lx, (ly + 3.5).toFixed(1), label, `fill="${color}" font-size="9.5"`));
  }
  out.push(
    `<line x1="${P.left}" x2="${P.right}" y1="${P.bottom}" y2="${P.bottom}" stroke="#444"/>`,
  );
  out.push("</g>");
  return out.join("\n");
}

/** The chart of `report` (the object bench/run.mjs writes as <core>.json), as SVG text. */
export function chart(report) {
  const present = RUNTIMES.filter((r) => report.bindings?.[r]);
  const py = pythonScenarios(report);
  const rows = Math.ceil(PANELS.length / COLUMNS);
  const scaled = report.native?.scaling !== undefined;
  const width = COLUMNS * PANEL_W;
  const height = HEADER_H + (rows + (scaled ? 1 : 0)) * PANEL_H + 8;
  const core = report.core === "real" ? "real core (libtritonserver.so, CPU-only)" : "fake core";
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, ` +
    `Helvetica, Arial, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    text(
      12,
      20,
      `tritonffi's public API per runtime against the C client` +
        (py ? " and Triton's Python API" : "") +
        ` — ${core}, ${String(report.date ?? "").slice(0, 10)}`,
      'font-size="13" font-weight="bold"',
    ),
  ];
  // Legend.
  let lx = 12;
  const ly = 40;
  for (const r of present) {
    const v = report.bindings[r];
    const label = `${r} ${v.version ?? ""}`.trim();
    out.push(`<rect x="${lx}" y="${ly - 9}" width="11" height="11" fill="${COLORS[r]}"/>`);
    out.push(text(lx + 15, ly, label));
    lx += 24 + label.length * 6.2;
  }
  out.push(
    `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${C_LINE}" ` +
      `stroke-width="1.6"/>`,
  );
  out.push(text(lx + 26, ly, "C hand-off client"));
  lx += 26 + 17 * 6.2 + 14;
  out.push(
    `<line x1="${lx}" x2="${lx + 22}" y1="${ly - 4}" y2="${ly - 4}" stroke="${PYTHON_LINE}" ` +
      `stroke-width="1.6" stroke-dasharray="5,3"/>`,
  );
  const pyLabel = py
    ? `Python API (${report.python.version})`
    : `Python API: not run (${report.python?.note ?? "not in this report"})`;
  out.push(text(lx + 26, ly, pyLabel, py ? "" : 'fill="#888"'));
  PANELS.forEach((spec, i) => {
    const x = (i % COLUMNS) * PANEL_W;
    const y = HEADER_H + Math.floor(i / COLUMNS) * PANEL_H;
    out.push(panel(x, y, spec, report, present, py));
  });
  if (scaled) {
    SCALE_PANELS.forEach((spec, i) => {
      out.push(scalePanel(i * SCALE_W, HEADER_H + rows * PANEL_H, spec, report, present));
    });
  }
  out.push("</svg>");
  return out.join("\n") + "\n";
}
