// Medians and spreads over a bench's rounds (bench/run.mjs, bench/run_ocr.mjs, bench/table.mjs):
// every figure is run several times, alternating with the others, and reported as its median with
// how far the runs strayed from it. Plain Node ESM.

/** The median of `xs` (numbers); undefined when there are none. */
export function median(xs) {
  const s = xs.filter((x) => typeof x === "number" && !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Half the range of `xs` relative to their median (0.05 = the runs lie within ±5 % of it);
 * undefined with fewer than two runs. */
export function spread(xs) {
  const s = xs.filter((x) => typeof x === "number" && !Number.isNaN(x));
  const m = median(s);
  if (s.length < 2 || !m) return undefined;
  return (Math.max(...s) - Math.min(...s)) / 2 / m;
}

/** `runs` (objects of one shape, some possibly missing keys) folded into one of that shape: the
 * median at every numeric leaf, other leaves from the first run that has them. */
export function medianOf(runs) {
  const present = runs.filter((r) => r !== undefined && r !== null);
  if (present.length === 0) return undefined;
  if (present.every((r) => typeof r === "number")) return median(present);
  if (present.some((r) => typeof r !== "object")) return present[0];
  const out = {};
  for (const k of new Set(present.flatMap((r) => Object.keys(r)))) {
    out[k] = medianOf(present.map((r) => r[k]));
  }
  return out;
}
