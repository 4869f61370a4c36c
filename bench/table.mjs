// Formats a bench/run.mjs report as Markdown: every figure as its median over the rounds with
// its spread, the bindings' with their ratio to the C client's hand-off mode (median to median;
// ≥ 1 = as fast or faster), Triton's Python API beside them when it ran, and the targets.
import { cpus } from "node:os";
import { spread } from "./stats.mjs";

export const RUNTIMES = ["deno", "bun", "node"];

/** [scenario, field (p50/p99 for latencies), label, lower is better]: the public API's rows. */
const ROWS = [
  ["latency_1x16", "p50", "latency c1, INT32 [1,16], p50 µs", true],
  ["latency_1x16", "p99", "latency c1, INT32 [1,16], p99 µs", true],
  ["latency_8x16", "p50", "latency c1, INT32 [8,16], p50 µs", true],
  ["latency_8x16", "p99", "latency c1, INT32 [8,16], p99 µs", true],
  ["throughput_c16_1x16", null, "throughput c16, [1,16], inferences/s", false],
  ["throughput_c128_1x16", null, "throughput c128, [1,16], inferences/s", false],
  ["throughput_c16_8x16", null, "throughput c16, [8,16], inferences/s", false],
  ["throughput_c128_8x16", null, "throughput c128, [8,16], inferences/s", false],
  ["stream_1x100000", null, "1 stream × 100,000 responses, responses/s", false],
  ["stream_128x1000", null, "128 streams × 1,000 responses, responses/s", false],
];

const FLOOR_ROWS = [
  ["latency_1x16", "p50", "*FFI layer*: latency c1, [1,16], p50 µs", true],
  ["throughput_c128_1x16", null, "*FFI layer*: throughput c128, [1,16], inferences/s", false],
  [
    "latency_1x16_late10",
    "p50",
    "*FFI layer*, next request 10 µs after each completion: latency c1, p50 µs",
    true,
  ],
];

const MICRO = [
  ["requestNewDelete", "RequestNew + RequestDelete"],
  ["addInput", "AddInput + RemoveInput"],
  ["appendInputData", "AppendInputData + RemoveAllInputData"],
  ["inferAsync", "ServerInferAsync"],
  ["responseOutput", "InferenceResponseOutput"],
];

export function fmt(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return "—";
  if (v >= 10000) return Math.round(v).toLocaleString("en-US");
  if (v >= 100) return v.toFixed(0);
  return v.toFixed(1);
}

function value(scenario, field) {
  if (scenario === undefined) return undefined;
  return field ? scenario[field] : scenario;
}

/** The public API's targets: scenario, field, label, lower is better, goal (ratio to C). */
const TARGETS = [
  ["latency_1x16", "p50", "c1 p50 latency [1,16] ≥ 0.8×", true, 0.8],
  ["latency_8x16", "p50", "c1 p50 latency [8,16] ≥ 0.8×", true, 0.8],
  ["throughput_c128_1x16", null, "c128 throughput [1,16] ≥ 0.75×", false, 0.75],
  ["throughput_c128_8x16", null, "c128 throughput [8,16] ≥ 0.75×", false, 0.75],
  ["stream_1x100000", null, "1 stream × 100,000 ≥ 0.7×", false, 0.7],
  ["stream_128x1000", null, "128 streams × 1,000 ≥ 0.6×", false, 0.6],
];

/** The spread over `runs` (a column's kept runs) of one scenario's figure, as ` ±x%`; empty
 * without runs (a single run, or a report written before reports kept them). */
function spreadNote(runs, key, field) {
  const q = spread((runs ?? []).map((r) => value(r?.[key], field)));
  return q === undefined ? "" : ` ${plusMinus(q)}`;
}

/** A spread (0.05 = 5 %) as `±5.0%`: a decimal below 10 %. */
function plusMinus(q) {
  return `±${(q * 100).toFixed(q < 0.1 ? 1 : 0)}%`;
}

/** A target's cell: the ratio and whether it reaches `goal`. */
function judged(q, goal) {
  return `${q.toFixed(2)}× ${q >= goal ? "✓" : "✗"}`;
}

/** Binding / C for throughputs, C / binding for times: ≥ 1 means at least as fast as C. */
function ratio(c, b, lowerIsBetter) {
  if (!c || !b) return undefined;
  return lowerIsBetter ? c / b : b / c;
}

/** The machine this process runs on, as a report records it: CPU count and model. */
export function machine() {
  const cpu = cpus();
  return { cpus: cpu.length, model: cpu[0]?.model ?? "CPU" };
}

/** The Python API's scenario results when that column ran, else undefined. */
export function pythonScenarios(report) {
  return report.python?.ran ? report.python.scenarios : undefined;
}

/** One line that says which columns ran, and why the Python API did not when it did not. */
function columnsNote(report, present) {
  const py = report.python;
  const how = "the blocking `model.infer()` at concurrency 1, asyncio `model.async_infer()` " +
    "tasks otherwise, outputs read through zero-copy NumPy views";
  const pyNote = py?.ran
    ? `Python API: ${py.version} (Triton's in-process \`tritonserver\` package on the same ` +
      `core and models; ${how}${py.note ? `; ${py.note}` : ""})`
    : `Python API: not run (${py?.note ?? "not in this report"})`;
  return `Columns run: C client (direct, hand-off), ${present.join(", ")}; ${pyNote}.`;
}

/** The scaling rows' concurrencies (bench/inference.ts's SCALE_CONCURRENCY) and streams key. */
export const SCALE_CONCURRENCY = [1, 8, 64, 512, 4096];
export const SCALE_STREAMS = "streams_10000x100";
/** Goals of the scaling rows: throughput at 4096 in flight against the column's own at 128, and
 * the RSS one thousand more requests in flight add, MiB. */
const NO_COLLAPSE = 0.9;
const RSS_PER_1000_MIB = 32;

/** MiB of RSS per 1,000 requests in flight: the growth from 64 to 4096 in flight. */
export function rssPer1000(scaling) {
  const lo = scaling?.scale_c64?.rssMiB;
  const hi = scaling?.scale_c4096?.rssMiB;
  if (lo === undefined || hi === undefined) return undefined;
  return ((hi - lo) / (4096 - 64)) * 1000;
}

/** The scaling section: throughput and p99 by concurrency, 10,000 streams, RSS; empty when the
 * report has no scaling rows (written before them). */
function scalingSection(report, present) {
  const { native, bindings } = report;
  if (!native.scaling) return [];
  const cols = present.filter((r) => bindings[r].scaling);
  const out = [
    "How cost grows with work: identity_int32 [1,16] at concurrency 1 to 4096 (inferences/s, and " +
    "the p99 of every inference), 10,000 concurrent repeat_int32 streams of 100 responses, and " +
    "the process's RSS as the timed run ends with all its requests in flight (C: its hand-off " +
    "mode; the runtimes dispose nothing, as in the scenarios):",
    "",
    `| scaling | C hand-off | ${cols.join(" | ")} |`,
    `|---|--:|${cols.map(() => "--:").join("|")}|`,
  ];
  const line = (label, key, field, lower, withQ = true) => {
    const c = value(native.scaling[key], field);
    const cells = cols.map((r) => {
      const b = value(bindings[r].scaling[key], field);
      if (b === undefined) return "—";
      const note = spreadNote(bindings[r].scalingRuns, key, field);
      const q = ratio(c, b, lower);
      return withQ && q !== undefined ? `${fmt(b)}${note} (${q.toFixed(2)}×)` : `${fmt(b)}${note}`;
    });
    out.push(
      `| ${label} | ${fmt(c)}${spreadNote(native.scalingRuns, key, field)} | ${
        cells.join(" | ")
      } |`,
    );
  };
  for (const n of SCALE_CONCURRENCY) line(`c${n}, inferences/s`, `scale_c${n}`, "rate", false);
  for (const n of SCALE_CONCURRENCY) line(`c${n}, p99 µs`, `scale_c${n}`, "p99", true);
  line("10,000 streams × 100, responses/s", SCALE_STREAMS, "rate", false);
  for (const n of [64, 4096]) line(`RSS MiB, ${n} in flight`, `scale_c${n}`, "rssMiB", true, false);
  line("RSS MiB, 10,000 streams issued", SCALE_STREAMS, "rssMiB", true, false);
  const per = (sc) => {
    const v = rssPer1000(sc);
    return v === undefined ? "—" : v.toFixed(1);
  };
  out.push(
    `| RSS MiB per 1,000 in flight (64 → 4096) | ${per(native.scaling)} | ${
      cols.map((r) => per(bindings[r].scaling)).join(" | ")
    } |`,
  );
  out.push("");
  return out;
}

/** The scaling targets' rows of the targets table (none without scaling rows). */
function scalingTargets(report, present) {
  const { bindings } = report;
  if (!present.some((r) => bindings[r].scaling)) return [];
  const collapse = present.map((r) => {
    const at4096 = value(bindings[r].scaling?.scale_c4096, "rate");
    const at128 = bindings[r].scenarios?.throughput_c128_1x16;
    return at4096 === undefined || !at128 ? "—" : judged(at4096 / at128, NO_COLLAPSE);
  });
  const rss = present.map((r) => {
    const v = rssPer1000(bindings[r].scaling);
    if (v === undefined) return "—";
    return `${v.toFixed(1)} MiB ${v <= RSS_PER_1000_MIB ? "✓" : "✗"}`;
  });
  return [
    `| c4096 throughput ≥ ${NO_COLLAPSE}× the runtime's own c128 | ${collapse.join(" | ")} |`,
    `| RSS per 1,000 in flight ≤ ${RSS_PER_1000_MIB} MiB | ${rss.join(" | ")} |`,
  ];
}

/** The rows the C reference's stability is checked on: scenario, field, label. */
const STABILITY = [
  ["latency_1x16", "p50", "c1 p50"],
  ["throughput_c128_1x16", null, "c128 [1,16]"],
  ["throughput_c128_8x16", null, "c128 [8,16]"],
  ["stream_1x100000", null, "1 stream"],
  ["stream_128x1000", null, "128 streams"],
];

/** One line (undefined without kept runs) on how steady the C hand-off reference was against the
 * bindings: its spread and the largest of theirs on the rows the targets judge, and the rows where
 * it moved more than every runtime did (a reference that moves more than what it measures needs
 * a reason). */
function stability(report, present) {
  const pct = (q) => q === undefined ? "—" : plusMinus(q);
  const cells = [];
  const wider = [];
  for (const [key, field, label] of STABILITY) {
    const c = spread((report.native.handoffRuns ?? []).map((r) => value(r?.[key], field)));
    const b = present.map((r) =>
      spread((report.bindings[r].runs ?? []).map((s) => value(s?.[key], field)))
    ).filter((q) => q !== undefined);
    if (c === undefined) continue;
    const most = b.length ? Math.max(...b) : undefined;
    cells.push(`${label} ${pct(c)} (bindings up to ${pct(most)})`);
    if (most !== undefined && c > most) wider.push(label);
  }
  if (cells.length === 0) return undefined;
  return `C hand-off stability, its runs' spread against the widest binding's: ${
    cells.join(", ")
  }. ` + (wider.length === 0
    ? "The reference moved less than every binding on every row."
    : `The reference moved more than every binding on: ${wider.join(", ")}.`);
}

export function table(report) {
  const { native, bindings, jsCallbacks } = report;
  const present = RUNTIMES.filter((r) => bindings[r]);
  const py = pythonScenarios(report);
  const out = [];
  // Reports written before they recorded their machine were rendered where they ran.
  const host = report.machine ?? machine();
  out.push(
    `**${report.core === "real" ? "Real core" : "Fake core"}** (\`${
      report.core === "real" ? "libtritonserver.so, CPU-only build" : "tests/fake_core"
    }\`), ${host.cpus} × ${host.model}, ${report.date.slice(0, 10)}; ` +
      `${report.durationMs} ms per timed run; ${report.rounds} alternating rounds (C hand-off, ` +
      `each runtime, the Python API), C hand-off: ${
        // Reports written before they kept every run kept the best figures.
        native.handoffRuns ? "median" : "best"} of ${report.cRuns} runs; ` +
      `\`npm run bench\` took ${report.seconds} s` +
      (report.loadAverage
        ? `; load average (1 min) ${report.loadAverage.start.toFixed(1)} at the start, ` +
          `${report.loadAverage.end.toFixed(1)} at the end.`
        : "."),
  );
  out.push(
    "Each figure is the median over the rounds, ± half the range of its runs relative to it; " +
      "binding figures are followed by the ratio of their median to the C client's hand-off " +
      "median (≥ 1× = as fast as C or faster).",
  );
  out.push(columnsNote(report, present));
  out.push("");
  const withRatio = (b, c, lower, note = "") => {
    const q = ratio(c, b, lower);
    return b === undefined ? "—" : `${fmt(b)}${note} (${q === undefined ? "—" : q.toFixed(2)}×)`;
  };
  const versions = present.map((r) => `${r} ${bindings[r].version} (${bindings[r].callbacks})`);
  if (py) versions.push("Python API");
  out.push(`| scenario | C direct | C hand-off | ${versions.join(" | ")} |`);
  out.push(`|---|--:|--:|${versions.map(() => "--:").join("|")}|`);
  for (const [key, field, label, lower] of ROWS) {
    const c = value(native.handoff[key], field);
    const cells = present.map((r) =>
      withRatio(
        value(bindings[r].scenarios[key], field),
        c,
        lower,
        spreadNote(bindings[r].runs, key, field),
      )
    );
    if (py) {
      cells.push(
        withRatio(value(py[key], field), c, lower, spreadNote(report.python.runs, key, field)),
      );
    }
    const cNote = spreadNote(native.handoffRuns, key, field);
    out.push(
      `| ${label} | ${fmt(value(native.direct[key], field))} | ${fmt(c)}${cNote} | ${
        cells.join(" | ")
      } |`,
    );
  }
  for (const [key, field, label, lower] of FLOOR_ROWS) {
    // The late-issue row has no C counterpart of its own: its ratio is to the C hand-off latency.
    const c = value(native.handoff[key] ?? native.handoff.latency_1x16, field);
    const cells = present.map((r) =>
      withRatio(
        value(bindings[r].floor?.[key], field),
        c,
        lower,
        spreadNote(bindings[r].floorRuns, key, field),
      )
    );
    if (py) cells.push(""); // the FFI layer is the binding's own: Python has no counterpart
    out.push(
      `| ${label} | ${fmt(value(native.direct[key], field))} | ${fmt(c)} | ${cells.join(" | ")} |`,
    );
  }
  out.push("");
  out.push(
    "*FFI layer*: the C client's loop written in JS against `lib.api` and the callback table (no " +
      "async generator, response or tensor objects): what the native hot path itself costs. " +
      "The row with the next request 10 µs after each completion shows what any JS between a " +
      "completion and the next request costs at concurrency 1 once Triton's instance thread has " +
      "gone to sleep (its ratio is to the C hand-off latency).",
  );
  out.push("");
  const steady = stability(report, present);
  if (steady) out.push(steady, "");
  out.push(
    "Targets (ratio of medians to the C hand-off client): concurrency 1 ≥ 0.8×, concurrency 128 " +
      "≥ 0.75×, 1 stream ≥ 0.7×, 128 streams ≥ 0.6×" +
      (py ? "; and never behind the Python API." : "."),
  );
  out.push("");
  out.push(`| target | ${present.join(" | ")} |`);
  out.push(`|---|${present.map(() => ":-:").join("|")}|`);
  const target = (key, field, lower, goal) =>
    present.map((r) => {
      const q = ratio(
        value(native.handoff[key], field),
        value(bindings[r].scenarios[key], field),
        lower,
      );
      return q === undefined ? "—" : judged(q, goal);
    });
  for (const [key, field, label, lower, goal] of TARGETS) {
    out.push(`| ${label} | ${target(key, field, lower, goal).join(" | ")} |`);
  }
  const floorTarget = (key, field, lower, goal) =>
    present.map((r) => {
      const q = ratio(
        value(native.handoff[key], field),
        value(bindings[r].floor?.[key], field),
        lower,
      );
      return q === undefined ? "—" : judged(q, goal);
    });
  out.push(
    `| FFI layer: c1 p50 latency ≥ 0.8× | ${
      floorTarget("latency_1x16", "p50", true, 0.8).join(" | ")
    } |`,
  );
  out.push(
    `| FFI layer: c128 throughput ≥ 0.6× | ${
      floorTarget("throughput_c128_1x16", null, false, 0.6).join(" | ")
    } |`,
  );
  out.push(...scalingTargets(report, present));
  if (py) {
    const behind = present.map((r) => {
      const rows = ROWS.filter(([key, field, , lower]) => {
        const q = ratio(value(py[key], field), value(bindings[r].scenarios[key], field), lower);
        return q !== undefined && q < 1;
      });
      return rows.length === 0 ? "✓" : `✗ (${rows.length} behind)`;
    });
    out.push(`| at least the Python API on every scenario row | ${behind.join(" | ")} |`);
  }
  out.push("");

  out.push(...scalingSection(report, present));

  out.push("Raw FFI cost of the hot calls, median ns per call (ratio: C / binding):");
  out.push("");
  out.push(`| call | C | ${present.join(" | ")} |`);
  out.push(`|---|--:|${present.map(() => "--:").join("|")}|`);
  for (const [key, label] of MICRO) {
    const c = native.micro?.[key];
    const cells = present.map((r) => {
      const b = bindings[r].micro?.[key];
      const q = ratio(c, b, true);
      return b === undefined ? "—" : `${fmt(b)} (${q === undefined ? "—" : q.toFixed(2)}×)`;
    });
    out.push(`| ${label} | ${fmt(c)} | ${cells.join(" | ")} |`);
  }
  out.push("");

  const memcpy = native.bigOutput?.memcpy_us;
  const fresh = native.bigOutput?.fresh_memcpy_us;
  out.push(
    "64 MiB FP32 output (identity_fp32), µs per read. C: `memcpy` into a buffer already touched, " +
      "and `malloc` + `memcpy` into fresh memory (page faults included, as for any new copy); " +
      "the copy's ratio is to the latter:",
  );
  out.push("");
  out.push(`| read | C | ${present.join(" | ")} |`);
  out.push(`|---|--:|${present.map(() => "--:").join("|")}|`);
  const big = (field, reference) =>
    present.map((r) => {
      const b = bindings[r].bigOutput?.[field];
      const q = reference === undefined ? undefined : ratio(reference, b, true);
      return b === undefined ? "—" : q === undefined ? fmt(b) : `${fmt(b)} (${q.toFixed(2)}×)`;
    });
  out.push(`| zero-copy view (\`tensor.data\`) | — | ${big("view_us").join(" | ")} |`);
  out.push(
    `| copied (\`tensor.copy()\`) | ${fmt(memcpy)} / ${fmt(fresh)} | ${
      big("copy_us", fresh).join(" | ")
    } |`,
  );
  out.push("");

  if (present.some((r) => bindings[r].memory)) {
    out.push(
      "Memory of a user who never disposes: the process's RSS before and after all the scenarios " +
        "above (none disposes a response), and the native responses still held after them:",
    );
    out.push("");
    out.push(`| | ${present.join(" | ")} |`);
    out.push(`|---|${present.map(() => "--:").join("|")}|`);
    const mem = (f) =>
      present.map((r) => {
        const m = bindings[r].memory;
        return m === undefined ? "—" : f(m);
      }).join(" | ");
    out.push(
      `| RSS MiB, before → after | ${
        mem((m) => `${m.rssBeforeMiB.toFixed(0)} → ${m.rssAfterMiB.toFixed(0)}`)
      } |`,
    );
    out.push(`| native responses held after | ${mem((m) => String(m.liveResponsesAfter))} |`);
    out.push("");
  }

  if (Object.keys(jsCallbacks ?? {}).length > 0) {
    out.push(
      "The same binding with `TRITONFFI_CALLBACKS=js` (JS callbacks that Triton's threads wait on):",
    );
    out.push("");
    out.push(`| scenario | C hand-off | ${present.join(" | ")} |`);
    out.push(`|---|--:|${present.map(() => "--:").join("|")}|`);
    for (const [key, field, label, lower] of [ROWS[0], ROWS[5]]) {
      const c = value(native.handoff[key], field);
      const cells = present.map((r) => {
        const b = value(jsCallbacks[r]?.[key], field);
        const q = ratio(c, b, lower);
        return b === undefined ? "—" : `${fmt(b)} (${q === undefined ? "—" : q.toFixed(2)}×)`;
      });
      out.push(`| ${label} | ${fmt(c)} | ${cells.join(" | ")} |`);
    }
    out.push("");
  }
  return out.join("\n") + "\n";
}
