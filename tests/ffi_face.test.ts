/**
 * The border between `src/` and `ffi/`: `src/`, `bench/` and `mod.ts` import `ffi/` only through
 * `ffi/mod.ts`; `ffi/`'s files import each other without a circle; `src/` keeps no module-level
 * mutable state (no top-level `let`, no top-level scratch arrays).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { test } from "./support/test.ts";
import { ROOT as root, tsFiles } from "./support/source_files.ts";

/** Every `.ts` file under `dir` (relative to the repository root). */
/** The relative modules `file` imports or re-exports, as repository paths. */
function imports(file: string): string[] {
  const source = readFileSync(join(root, file), "utf8");
  const found: string[] = [];
  for (const m of source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)) {
    found.push(normalize(join(dirname(file), m[1])));
  }
  return found;
}

test("src/, bench/ and mod.ts reach ffi/ through ffi/mod.ts alone", () => {
  const offenders: string[] = [];
  for (const file of [...tsFiles("src"), ...tsFiles("bench"), "mod.ts"]) {
    for (const target of imports(file)) {
      if (target.startsWith("ffi/") && target !== join("ffi", "mod.ts")) {
        offenders.push(`${file} imports ${target}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

test("ffi/'s files import each other without a circle", () => {
  const files = tsFiles("ffi");
  const graph = new Map(files.map((f) => [f, imports(f).filter((t) => t.startsWith("ffi/"))]));
  assert.ok(graph.size > 20, `found ${graph.size} files under ffi/`);
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  const visit = (file: string, path: string[]) => {
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") {
        circles.push([...path.slice(path.indexOf(next)), next].join(" → "));
      } else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  assert.deepEqual(circles, []);
});

/** Files allowed a module-level scratch array, with why. */
const SCRATCH_ALLOWED: Record<string, string> = {
  [join("src", "half.ts")]: "a float32's bits, written and read within one conversion",
};

test("src/ keeps no module-level mutable state", () => {
  const found: string[] = [];
  for (const file of tsFiles("src")) {
    if (file in SCRATCH_ALLOWED) continue;
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      const at = `${relative(root, join(root, file))}:${i + 1}`;
      if (/^(export )?let\b/.test(line)) found.push(`${at}: ${line.trim()}`);
      if (/^(export )?const \w+(: [\w<>]+\[\])? = \[\];/.test(line)) {
        found.push(`${at}: ${line.trim()}`);
      }
      if (/^(export )?const \w+ = new (Big)?(Uint|Int|Float)\d+Array\((?!0\))/.test(line)) {
        found.push(`${at}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(found, []);
});

/** The packages `file` and the modules it reaches import (statically or with `import()`). */
function packagesReached(entry: string): Map<string, string> {
  const reached = new Map<string, string>(); // package → the file that imports it
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(join(root, file), "utf8");
    const specifiers = [
      ...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms),
      ...source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
    ].map((m) => m[1]);
    for (const s of specifiers) {
      if (s.startsWith(".")) visit(normalize(join(dirname(file), s)));
      else if (!s.startsWith("node:") && !reached.has(s)) reached.set(s, file);
    }
  };
  visit(entry);
  return reached;
}

test("mod.ts loads no HTTP library; the front end is tritonffi/serve (serve.ts)", () => {
  // koffi is Node's FFI (imported on Node only); nothing else is a dependency of the binding.
  const fromMod = [...packagesReached("mod.ts")].filter(([p]) => p !== "koffi");
  assert.deepEqual(fromMod.map(([p, f]) => `${p} (${f})`), []);
  const fromServe = packagesReached("serve.ts");
  assert.ok(fromServe.has("hono"), [...fromServe.keys()].join(", "));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(pkg.exports), [".", "./serve", "./grpc", "./openai"]);
  assert.ok(packagesReached("grpc.ts").has("@grpc/grpc-js"));
  // Chat templates and tokenizers are the OpenAI front end's alone.
  for (const own of ["@huggingface/jinja", "@huggingface/tokenizers"]) {
    assert.ok(packagesReached("openai.ts").has(own), own);
    assert.ok(!fromServe.has(own), [...fromServe.keys()].join(", "));
    assert.ok(!packagesReached("grpc.ts").has(own), own);
  }
});
