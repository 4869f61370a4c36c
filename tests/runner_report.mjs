// What a test runner's own report says: the passed, failed and skipped counts of `deno test`,
// `bun test` and `node --test` (spec reporter), in one unit (see counts()), and the names of the
// tests that failed. Used by
// tests/run_all.mjs (`npm test`) and tests/aarch64/run.mjs (`npm run test:aarch64`).
// Plain Node ESM, so it runs under any of the three.
import { stripVTControlCharacters } from "node:util";

/**
 * Passed, failed and skipped tests in one unit on every runner: the tests that hold no others (a
 * describe block's tests each count, the block does not), as Bun and Node count them. Deno's own
 * line counts its top-level tests, a describe block as one, and its tests apart as steps: with
 * Deno's JUnit report (`deno test --junit-path`), it is counted from that report instead.
 * Undefined where the runner's closing report is missing (it did not finish).
 */
export function counts(runtime, output, denoJunit) {
  if (runtime === "deno" && denoJunit !== undefined) {
    const c = junitCounts(denoJunit);
    if (c) return c;
  }
  return reportedCounts(runtime, output);
}

/** `&lt;` and the other four of XML's entities, and character references, in `text`. */
function unescapeXml(text) {
  return text.replace(/&(#x?[0-9a-f]+|lt|gt|amp|quot|apos);/gi, (_, e) => {
    const named = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }[e.toLowerCase()];
    if (named) return named;
    return String.fromCodePoint(
      e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : +e.slice(1),
    );
  });
}

/**
 * Counts from Deno's JUnit report, where a test and each of its steps are test cases, a step
 * named `"block > test"`: the cases no other case is below are the tests. A block that failed
 * with none of its tests failing (its own code threw) counts as one failed test.
 */
function junitCounts(xml) {
  const cases = [...xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map(
    (m) => {
      const name = /\bname="([^"]*)"/.exec(m[1]);
      const body = m[2] ?? "";
      return {
        name: unescapeXml(name ? name[1] : ""),
        failed: /<(failure|error)\b/.test(body),
        skipped: /<skipped\b/.test(body),
      };
    },
  );
  if (cases.length === 0 && !/<testsuites\b/.test(xml)) return undefined;
  const below = (parent, c) => c.name.startsWith(parent.name + " > ");
  const result = { passed: 0, failed: 0, skipped: 0 };
  for (const c of cases) {
    const children = cases.filter((d) => below(c, d));
    if (children.length > 0) {
      if (c.failed && !children.some((d) => d.failed)) result.failed++;
      continue;
    }
    if (c.failed) result.failed++;
    else if (c.skipped) result.skipped++;
    else result.passed++;
  }
  return result;
}

/** The counts of a runner's own closing report (Deno's in its own unit, see {@link counts}). */
function reportedCounts(runtime, output) {
  // deno: "ok | 94 passed | 0 failed | 2 ignored (14s)"
  // bun: " 94 pass", " 2 skip", " 0 fail" on lines of their own
  // node (spec reporter): "ℹ pass 94", "ℹ fail 0", "ℹ cancelled 0", "ℹ skipped 2"
  const text = stripVTControlCharacters(output);
  const num = (re) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  if (runtime === "deno") {
    // "ok | 18 passed (126 steps) | 0 failed | 1 ignored": steps are counted apart
    const steps = String.raw`(?: \(\d+ steps?\))?`;
    const m = new RegExp(
      String.raw`(\d+) passed${steps} \| (\d+) failed${steps}(?: \| (\d+) ignored)?`,
    ).exec(text);
    return m && { passed: +m[1], failed: +m[2], skipped: +(m[3] ?? 0) };
  }
  if (runtime === "bun") {
    const passed = num(/^\s*(\d+) pass$/m);
    const failed = num(/^\s*(\d+) fail$/m);
    return passed === undefined || failed === undefined
      ? undefined
      : { passed, failed, skipped: num(/^\s*(\d+) skip$/m) ?? 0 };
  }
  const passed = num(/^ℹ pass (\d+)$/m);
  const failed = num(/^ℹ fail (\d+)$/m);
  return passed === undefined || failed === undefined ? undefined : {
    passed,
    failed: failed + (num(/^ℹ cancelled (\d+)$/m) ?? 0),
    skipped: num(/^ℹ skipped (\d+)$/m) ?? 0,
  };
}

/** The names of the tests a runner reported failed (its own words, at most `most` of them), so
 * that the closing summary names them: the runs after a failure push its report far up. */
export function failures(runtime, output, most = 10) {
  const lines = stripVTControlCharacters(output).split("\n");
  let names;
  if (runtime === "deno") {
    // " FAILURES " then "name => ./tests/file.test.ts:12:3" per failed test
    const start = lines.findIndex((l) => l.trim() === "FAILURES");
    names = start < 0 ? [] : lines.slice(start + 1).filter((l) => / => \S+:\d+:\d+$/.test(l));
  } else if (runtime === "bun") {
    names = lines.filter((l) => l.startsWith("(fail) "));
  } else {
    names = lines.filter((l) => /^\s*✖ /.test(l) && !/failing tests:$/.test(l));
  }
  const unique = [...new Set(names.map((l) => l.trim()))];
  return unique.length > most
    ? [...unique.slice(0, most), `… and ${unique.length - most} more`]
    : unique;
}

/**
 * Where a runner that did not finish was, for the closing summary (a crash's own words are far up
 * by then): the last test file it named (Deno's "running N tests from FILE", Bun's "FILE:" line)
 * and the last `most` lines it printed. Deno's reporter writes from a buffer that an abort can
 * lose, so there the file that crashed may be the one after it.
 */
export function lastWords(runtime, output, most = 25) {
  const lines = stripVTControlCharacters(output).split("\n").filter((l) => l.trim() !== "");
  const fileLine = runtime === "deno"
    ? /^running \d+ tests? from (\S+)/
    : runtime === "bun"
    ? /^(\S+\.test\.[cm]?[jt]s):$/
    : undefined;
  let file;
  if (fileLine) {
    for (const l of lines) {
      const m = fileLine.exec(l.trim());
      if (m) file = m[1];
    }
  }
  return { file, tail: lines.slice(-most) };
}
