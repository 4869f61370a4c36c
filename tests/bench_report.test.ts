/**
 * The bench's report writers on a fixed report (no run, no core): bench/table.mjs puts the Python
 * API's column beside the bindings' with its ratios, leaves its FFI-layer cells empty, says which
 * columns ran, and counts the rows a runtime is behind it on; medians with the spread of their
 * runs, the targets on the ratio of medians, and how steady the C reference was; bench/chart.mjs draws a bar per
 * runtime and scenario and the C and Python references as lines, all on the panel's one scale.
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { chart, PANELS } from "../bench/chart.mjs";
import { table } from "../bench/table.mjs";

const scenarios = (scale: number) => ({
  latency_1x16: { p50: 40 / scale, p99: 90 / scale, count: 1000 },
  latency_8x16: { p50: 50 / scale, p99: 100 / scale, count: 1000 },
  throughput_c16_1x16: 60_000 * scale,
  throughput_c128_1x16: 64_000 * scale,
  throughput_c16_8x16: 50_000 * scale,
  throughput_c128_8x16: 52_000 * scale,
  stream_1x100000: 90_000 * scale,
  stream_128x1000: 80_000 * scale,
});

function report(python: Record<string, unknown>) {
  const c = {
    latency_1x16: { p50: 20, p99: 80, count: 5000 },
    latency_8x16: { p50: 25, p99: 90, count: 5000 },
    throughput_c16_1x16: 100_000,
    throughput_c128_1x16: 80_000,
    throughput_c16_8x16: 90_000,
    throughput_c128_8x16: 70_000,
    stream_1x100000: 600_000,
    stream_128x1000: 400_000,
  };
  const binding = (version: string, scale: number) => ({
    version,
    callbacks: "native",
    scenarios: scenarios(scale),
    floor: { latency_1x16: { p50: 30, p99: 60, count: 1 }, throughput_c128_1x16: 70_000 },
    memory: { rssBeforeMiB: 60.2 * scale, rssAfterMiB: 170.6 * scale, liveResponsesAfter: 256 },
  });
  return {
    date: "2026-12-01T00:00:00.000Z",
    core: "real",
    machine: { cpus: 2, model: "AMD EPYC" },
    durationMs: 1000,
    rounds: 5,
    cRuns: 6,
    seconds: 300,
    loadAverage: { start: 0.5, end: 1.26 },
    native: { handoff: c, direct: c },
    bindings: { deno: binding("2.9.6", 1), bun: binding("1.4.5", 0.5), node: binding("24", 2) },
    jsCallbacks: {},
    python,
  };
}

const ran = {
  ran: true,
  version: "tritonserver 2.70.0, Python 3.11.2",
  scenarios: {
    latency_1x16: { p50: 200, p99: 400, count: 100 },
    latency_8x16: { p50: 250, p99: 150, count: 100 }, // bun's p99 (200) is behind this one
    throughput_c16_1x16: 4000,
    throughput_c128_1x16: 4000,
    throughput_c16_8x16: 3000,
    throughput_c128_8x16: 3000,
    stream_1x100000: 12_000,
    stream_128x1000: 10_000,
  },
};

/** The cells of the Markdown table row whose label starts with `label`. */
function row(md: string, label: string): string[] {
  const line = md.split("\n").find((l) => l.startsWith(`| ${label}`));
  assert.ok(line, `no row "${label}"`);
  return line.split("|").slice(1, -1).map((c) => c.trim());
}

test("table: the Python API's column, its ratios to C, empty FFI-layer cells", () => {
  const md = table(report(ran));
  assert.deepEqual(row(md, "scenario").slice(3), [
    "deno 2.9.6 (native)",
    "bun 1.4.5 (native)",
    "node 24 (native)",
    "Python API",
  ]);
  // C hand-off p50 20 µs against 200 µs; 80,000/s against 4000/s.
  assert.equal(row(md, "latency c1, INT32 [1,16], p50 µs")[6], "200 (0.10×)");
  assert.equal(row(md, "throughput c128, [1,16]")[6], "4000 (0.05×)");
  assert.equal(row(md, "1 stream × 100,000")[6], "12,000 (0.02×)");
  assert.equal(row(md, "*FFI layer*: latency c1")[6], "");
  assert.match(md, /took 300 s; load average \(1 min\) 0\.5 at the start, 1\.3 at the end\.\n/);
  assert.match(md, /Columns run: C client \(direct, hand-off\), deno, bun, node; Python API: tri/);
  assert.deepEqual(row(md, "at least the Python API").slice(1), ["✓", "✗ (1 behind)", "✓"]);
});

test("table: says why the Python API did not run, and has no column for it", () => {
  const md = table(report({ ran: false, note: "TRITONSERVER_PYTHON not set" }));
  assert.match(md, /; Python API: not run \(TRITONSERVER_PYTHON not set\)\.\n/);
  assert.equal(row(md, "scenario").length, 6);
  assert.equal(row(md, "latency c1, INT32 [1,16], p50 µs").length, 6);
  assert.doesNotMatch(md, /at least the Python API/);
});

/** Every `<tag ...>` of the SVG with its attributes. */
function elements(svg: string, tag: string): Record<string, string>[] {
  return [...svg.matchAll(new RegExp(`<${tag} ([^>]*)/?>`, "g"))].map((m) =>
    Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]))
  );
}

test("chart: a bar per runtime and scenario, the C and Python lines on the same scale", () => {
  const r = report(ran);
  const svg = chart(r);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\n$/);
  const bars = elements(svg, "rect").filter((e) => e.class === "bar");
  const refs = elements(svg, "line").filter((e) => e.class === "ref");
  assert.equal(bars.length, PANELS.length * 3);
  assert.equal(refs.length, PANELS.length * 2);
  PANELS.forEach(([key, field], i) => {
    const pick = (v: unknown) => (field ? (v as Record<string, number>)[field] : v) as number;
    const mine = bars.slice(i * 3, i * 3 + 3);
    assert.deepEqual(mine.map((b) => b["data-runtime"]), ["deno", "bun", "node"]);
    const bottom = Number(mine[0].y) + Number(mine[0].height);
    const perUnit = Number(mine[0].height) / pick(r.bindings.deno.scenarios[key as "latency_1x16"]);
    for (const b of mine) {
      const runtime = b["data-runtime"] as "deno" | "bun" | "node";
      const v = pick(r.bindings[runtime].scenarios[key as "latency_1x16"]);
      assert.equal(Number(b["data-value"]), v);
      assert.ok(Math.abs(Number(b.height) - v * perUnit) < 0.2, `${key} ${runtime} height`);
      assert.ok(Math.abs(Number(b.y) + Number(b.height) - bottom) < 0.2, `${key} baseline`);
    }
    const [c, py] = refs.slice(i * 2, i * 2 + 2);
    assert.equal(c["data-ref"], "c");
    assert.equal(py["data-ref"], "python");
    const cv = pick(r.native.handoff[key as "latency_1x16"]);
    const pv = pick(ran.scenarios[key as "latency_1x16"]);
    assert.ok(Math.abs(bottom - Number(c.y1) - cv * perUnit) < 0.2, `${key} C line`);
    assert.ok(Math.abs(bottom - Number(py.y1) - pv * perUnit) < 0.2, `${key} Python line`);
  });
});

test("chart: without the Python API, no Python line and the legend says why", () => {
  const svg = chart(report({ ran: false, note: "TRITONSERVER_PYTHON not set" }));
  const refs = elements(svg, "line").filter((e) => e.class === "ref");
  assert.equal(refs.length, PANELS.length);
  assert.ok(refs.every((e) => e["data-ref"] === "c"));
  assert.match(svg, />Python API: not run \(TRITONSERVER_PYTHON not set\)</);
});

test("table: the RSS before and after the scenarios, and the responses still held", () => {
  const md = table(report(ran));
  assert.deepEqual(row(md, "RSS MiB, before → after").slice(1), [
    "60 → 171",
    "30 → 85",
    "120 → 341",
  ]);
  assert.deepEqual(row(md, "native responses held after").slice(1), ["256", "256", "256"]);
});

test("table: medians with their spread, targets on the ratio of medians, C's stability", () => {
  const r = report(ran);
  // Three C hand-off runs and three of deno's: the report's figures are their medians, and the
  // cells show half the range of the runs relative to the median.
  const c = (p50: number, c128: number, s1: number) => ({
    latency_1x16: { p50 },
    throughput_c128_1x16: c128,
    stream_1x100000: s1,
  });
  const native = r.native as Record<string, unknown>;
  native.handoff = { ...r.native.handoff, ...c(20, 80_000, 600_000) };
  native.handoffRuns = [c(19, 76_000, 600_000), c(20, 80_000, 570_000), c(21, 84_000, 630_000)];
  const bindings = r.bindings as Record<string, Record<string, unknown>>;
  bindings.deno.scenarios = { ...r.bindings.deno.scenarios, ...c(25, 60_000, 450_000) };
  bindings.deno.runs = [c(24, 60_000, 400_000), c(25, 57_000, 450_000), c(26, 66_000, 500_000)];
  const md = table(r);
  assert.equal(row(md, "latency c1, INT32 [1,16], p50 µs")[2], "20.0 ±5.0%");
  // 20 / 25 = 0.80×; the runs 24–26 lie within ±1 of 25.
  assert.equal(row(md, "latency c1, INT32 [1,16], p50 µs")[3], "25.0 ±4.0% (0.80×)");
  assert.equal(row(md, "throughput c128, [1,16]")[3], "60,000 ±7.5% (0.75×)");
  assert.equal(row(md, "1 stream × 100,000")[3], "450,000 ±11% (0.75×)");
  // One run (bun, node and the Python API here): no spread.
  assert.equal(row(md, "throughput c128, [1,16]")[4], "32,000 (0.40×)");
  assert.equal(row(md, "c1 p50 latency [1,16] ≥ 0.8×")[1], "0.80× ✓");
  assert.equal(row(md, "c128 throughput [1,16] ≥ 0.75×")[1], "0.75× ✓");
  assert.deepEqual(row(md, "1 stream × 100,000 ≥ 0.7×").slice(1), [
    "0.75× ✓",
    "0.07× ✗",
    "0.30× ✗",
  ]);
  assert.equal(row(md, "128 streams × 1,000 ≥ 0.6×")[1], "0.20× ✗");
  assert.match(
    md,
    /5 alternating rounds \(C hand-off, each runtime, the Python API\), C hand-off: median of 6 runs;/,
  );
  assert.match(
    md,
    /C hand-off stability, its runs' spread against the widest binding's: c1 p50 ±5\.0% \(bindings up to ±4\.0%\), c128 \[1,16\] ±5\.0% \(bindings up to ±7\.5%\),/,
  );
  assert.match(md, /The reference moved more than every binding on: c1 p50\./);
  assert.match(
    md,
    /concurrency 128 ≥ 0\.75×, 1 stream ≥ 0\.7×, 128 streams ≥ 0\.6×; and never behind/,
  );
});

/** Scaling rows: rate, p99 and RSS at each concurrency, `scale` × the C figures' rate. */
function scalingRows(scale: number, rssStep: number) {
  const rows: Record<string, { rate: number; p99?: number; rssMiB: number }> = {};
  [1, 8, 64, 512, 4096].forEach((n, i) => {
    rows[`scale_c${n}`] = {
      rate: (50_000 + 10_000 * i) * scale,
      p99: 40 * n,
      rssMiB: 100 + rssStep * n,
    };
  });
  rows.streams_10000x100 = { rate: 300_000 * scale, rssMiB: 400 };
  return rows;
}

test("table and chart: the scaling rows, their targets, and two panels of lines", () => {
  const r = report(ran);
  const native = r.native as Record<string, unknown>;
  native.scaling = scalingRows(1, 0.004); // 0.004 MiB a request in flight: 4.0 per 1,000
  const bindings = r.bindings as Record<string, Record<string, unknown>>;
  bindings.deno.scaling = scalingRows(0.5, 0.01); // c4096 45,000/s against its c128 64,000/s
  bindings.bun.scaling = scalingRows(1.2, 0.05); // 108,000 against 32,000; 50 MiB per 1,000
  const md = table(r);
  assert.deepEqual(row(md, "c4096, inferences/s").slice(1), [
    "90,000",
    "45,000 (0.50×)",
    "108,000 (1.20×)",
  ]);
  assert.deepEqual(row(md, "c512, p99 µs").slice(1), [
    "20,480",
    "20,480 (1.00×)",
    "20,480 (1.00×)",
  ]);
  assert.deepEqual(row(md, "10,000 streams × 100").slice(1), [
    "300,000",
    "150,000 (0.50×)",
    "360,000 (1.20×)",
  ]);
  assert.deepEqual(row(md, "RSS MiB per 1,000 in flight").slice(1), ["4.0", "10.0", "50.0"]);
  // node has no scaling rows: no column in the section, a dash in the targets.
  assert.equal(row(md, "scaling").length, 4);
  assert.deepEqual(row(md, "c4096 throughput ≥ 0.9× the runtime's own c128").slice(1), [
    "0.70× ✗",
    "3.38× ✓",
    "—",
  ]);
  assert.deepEqual(row(md, "RSS per 1,000 in flight ≤ 32 MiB").slice(1), [
    "10.0 MiB ✓",
    "50.0 MiB ✗",
    "—",
  ]);

  const svg = chart(r);
  const lines = elements(svg, "polyline").filter((e) => e.class === "scale");
  // Two panels, each a line for deno, bun and C.
  assert.deepEqual(lines.map((l) => l["data-series"]), ["deno", "bun", "c", "deno", "bun", "c"]);
  const points = elements(svg, "circle").filter((e) => e.class === "point");
  assert.equal(points.length, 6 * 5);
  const rate = points.slice(0, 15);
  const y = (series: string, n: number) =>
    Number(
      rate.find((p) => p["data-series"] === series && p["data-concurrency"] === String(n))!.cy,
    );
  // Linear from zero: the line through deno's 25,000/s and bun's 60,000/s at c1 meets zero on
  // the axis (y 186).
  const axis = (v1: number, y1: number, v2: number, y2: number) =>
    y1 + ((y2 - y1) * v1) / (v1 - v2);
  assert.ok(Math.abs(axis(25_000, y("deno", 1), 60_000, y("bun", 1)) - 186) < 0.3);
  assert.equal(
    Number(
      points.find((p) =>
        p["data-series"] === "c" && p["data-concurrency"] === "4096"
      )!["data-value"],
    ),
    90_000,
  );
});
