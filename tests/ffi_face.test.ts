/**
 * The border of `ffi/`: `src/`, `serving/`, `bench/` and the entries import `ffi/` only through
 * `ffi/mod.ts`; `ffi/`'s files import each other without a circle. The rest of the house's rules
 * (the binding never imports the front ends, no module-level state outside the places named) are
 * `tests/house_rules.test.ts`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "./support/test.ts";
import { ROOT as root, tsFiles } from "./support/source_files.ts";

/** The relative modules `file` imports or re-exports, as repository paths. */
function imports(file: string): string[] {
  const source = readFileSync(join(root, file), "utf8");
  const found: string[] = [];
  for (const m of source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)) {
    found.push(normalize(join(dirname(file), m[1])));
  }
  return found;
}

test("src/, serving/, bench/ and the entries reach ffi/ through ffi/mod.ts alone", () => {
  const offenders: string[] = [];
  const entries = ["mod.ts", "serve.ts", "grpc.ts", "openai.ts"];
  for (const file of [...tsFiles("src"), ...tsFiles("serving"), ...tsFiles("bench"), ...entries]) {
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
