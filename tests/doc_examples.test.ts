/**
 * Every `@example` of the public docstrings (the entries `mod.ts`, `serve.ts`, `grpc.ts`,
 * `openai.ts`, `types.ts`, and `src/`, `serving/`, `ffi/`) is a complete program that imports from
 * `"tritonffi"`, and runs: each is written out with `"tritonffi"`, `"tritonffi/serve"`,
 * `"tritonffi/grpc"` and `"tritonffi/openai"` pointing at their entries, `"./models"` at the test
 * model repository, then imported (which runs it to its end, `await using` included); on Deno
 * they are type-checked too (`deno check`).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { test } from "./support/test.ts";
import { ROOT as root, tsFiles } from "./support/source_files.ts";
import { GRPC_SKIP, MODEL_REPOSITORY } from "./support/env.ts";

interface Example {
  /** `file:line` of the `@example`. */
  readonly at: string;
  readonly code: string;
}

/** The fenced `ts` blocks that follow an `@example` tag in `file`'s comments. */
function examplesIn(file: string): Example[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\*\s*@example\b/.test(lines[i])) continue;
    const open = i + 1;
    if (!/^\s*\*\s*```ts\s*$/.test(lines[open] ?? "")) continue;
    const body: string[] = [];
    let j = open + 1;
    for (; j < lines.length && !/^\s*\*\s*```\s*$/.test(lines[j]); j++) {
      body.push(lines[j].replace(/^\s*\* ?/, ""));
    }
    found.push({ at: `${file}:${i + 1}`, code: body.join("\n") + "\n" });
    i = j;
  }
  return found;
}

const examples = [
  "mod.ts",
  "serve.ts",
  "grpc.ts",
  "openai.ts",
  "types.ts",
  ...tsFiles("src"),
  ...tsFiles("serving"),
  ...tsFiles("ffi"),
].flatMap(examplesIn);

/** Where this runtime's copies go (the three runners may run at once); not under `.build/`,
 * which Deno's configuration excludes from type-checking. */
const runtime: "deno" | "bun" | "node" = "Deno" in globalThis
  ? "deno"
  : process.versions.bun
  ? "bun"
  : "node";
const outDir = join(root, ".doc_examples", runtime);

/** Writes `example` as a module of its own; returns its path. */
function writeExample(example: Example, index: number): string {
  const path = join(outDir, `example_${index}.ts`);
  const entry = (file: string) => {
    const rel = relative(outDir, join(root, file)).split("\\").join("/");
    return JSON.stringify(rel.startsWith(".") ? rel : `./${rel}`);
  };
  const code = example.code
    .replaceAll('"tritonffi/serve"', entry("serve.ts"))
    .replaceAll('"tritonffi/grpc"', entry("grpc.ts"))
    .replaceAll('"tritonffi/openai"', entry("openai.ts"))
    .replaceAll('"tritonffi/types"', entry("types.ts"))
    .replaceAll('"tritonffi"', entry("mod.ts"))
    .replaceAll('"./models"', JSON.stringify(MODEL_REPOSITORY));
  writeFileSync(path, `// ${example.at}\n${code}`);
  return path;
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const written = examples.map(writeExample);

test("every @example is a complete program importing from tritonffi", () => {
  assert.ok(examples.length >= 11, `found ${examples.length} examples`);
  for (const e of examples) {
    assert.match(e.code, /^import \{[^}]+\} from "tritonffi";$/m, `${e.at} imports nothing`);
  }
});

test("the @examples type-check (deno check)", {
  skip: runtime !== "deno" && "type-checked in the Deno run",
}, () => {
  const deno = (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();
  const r = spawnSync(deno, ["check", "--quiet", ...written], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});

examples.forEach((example, i) => {
  test(`@example at ${example.at} runs`, {
    timeout: 120_000,
    skip: /serveGrpc\(/.test(example.code) && GRPC_SKIP,
  }, async () => {
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]) => void printed.push(args);
    try {
      await import(pathToFileURL(written[i]).href);
    } finally {
      console.log = log;
    }
    assert.ok(printed.length > 0, `${example.at} printed nothing`);
  });
});
