/**
 * The rules of the house, which folder may import which and where module state may live
 * (docs/layout.md draws the rooms):
 * - the binding (`mod.ts`, `src/`, `ffi/`) never imports the front ends (`serving/`, `serve.ts`,
 *   `grpc.ts`, `openai.ts`), and loads no HTTP or gRPC library; `src/` holds nothing `mod.ts`
 *   does not reach;
 * - `serving/common/`, what every front end shares, imports no protocol;
 * - one protocol (`serving/kserve/`, `serving/openai/`) never imports another, and KServe's two
 *   transports (`serving/kserve/http/`, `serving/kserve/grpc/`) never import each other: both
 *   stand on the protocol's rules in `serving/kserve/`;
 * - no module-level mutable state (a top-level `let`, an empty array or object to fill, a
 *   scratch typed array, a `Map`, `Set`, `WeakMap` or `WeakSet`) outside the places
 *   {@link STATE_ALLOWED} names with the reason. A constant lookup table is typed `ReadonlyMap` or `ReadonlySet`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { test } from "./support/test.ts";
import { ROOT as root, tsFiles } from "./support/source_files.ts";

/** Every module `file` imports or re-exports (statically or with `import()`): relative ones as
 * repository paths, packages by name. */
function importsOf(file: string): { modules: string[]; packages: string[] } {
  const source = readFileSync(join(root, file), "utf8");
  const specifiers = [
    ...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms),
    ...source.matchAll(/^import\s+"([^"]+)"/gm),
    ...source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ].map((m) => m[1]);
  const modules: string[] = [];
  const packages: string[] = [];
  for (const s of specifiers) {
    if (s.startsWith(".")) modules.push(normalize(join(dirname(file), s)).split(sep).join("/"));
    else if (!s.startsWith("node:")) packages.push(s);
  }
  return { modules, packages };
}

/** `files` as repository paths with `/` separators. */
const posix = (files: string[]) => files.map((f) => f.split(sep).join("/"));

const BINDING = posix(["mod.ts", ...tsFiles("src"), ...tsFiles("ffi")]);
const SERVING = posix(tsFiles("serving"));
const ENTRIES = ["serve.ts", "grpc.ts", "openai.ts"];

/** The imports of `files` that reach a path `forbidden` says no to, as `file imports target`. */
function offenders(files: string[], forbidden: (target: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file).modules.filter(forbidden).map((target) => `${file} imports ${target}`)
  );
}

test("the house has the rooms these rules name", () => {
  assert.ok(BINDING.length > 60, `${BINDING.length} files in the binding`);
  for (const room of ["serving/common/", "serving/kserve/http/", "serving/kserve/grpc/"]) {
    assert.ok(SERVING.some((f) => f.startsWith(room)), `no files under ${room}`);
  }
  assert.ok(SERVING.some((f) => f.startsWith("serving/openai/")), "no files under serving/openai/");
});

test("the binding (mod.ts, src/, ffi/) never imports the front ends", () => {
  const frontEnd = (t: string) => t.startsWith("serving/") || ENTRIES.includes(t);
  assert.deepEqual(offenders(BINDING, frontEnd), []);
});

test("src/ is the binding: every file of it is reached from mod.ts or types.ts", () => {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    importsOf(file).modules.forEach(visit);
  };
  // types.ts (tritonffi/types, and the tritonffi command through it) writes the declarations
  // of a model repository that mod.ts's API reads: the binding's too.
  visit("mod.ts");
  visit("types.ts");
  const src = BINDING.filter((f) => f.startsWith("src/"));
  assert.ok(src.length > 20, `${src.length} files in src/`);
  assert.deepEqual(src.filter((f) => !reached.has(f)), []);
});

test("mod.ts loads no HTTP or gRPC library; each front end has its own entry", () => {
  const reached = (entry: string) => {
    const packages = new Map<string, string>(); // package → the file that imports it
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const { modules, packages: named } = importsOf(file);
      for (const p of named) if (!packages.has(p)) packages.set(p, file);
      modules.forEach(visit);
    };
    visit(entry);
    return packages;
  };
  // koffi is Node's FFI (imported on Node only); @opentelemetry/api is the OpenTelemetry API (no
  // SDK, no transport: src/telemetry.ts); nothing else is a dependency of the binding.
  const binding = ([p]: [string, string]) => p !== "koffi" && p !== "@opentelemetry/api";
  const fromMod = [...reached("mod.ts")].filter(binding);
  assert.deepEqual(fromMod.map(([p, f]) => `${p} (${f})`), []);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(pkg.exports), [".", "./serve", "./grpc", "./openai", "./types"]);
  // tritonffi/types (the declarations of a model repository) is the binding's too.
  const fromTypes = [...reached("types.ts")].filter(binding);
  assert.deepEqual(fromTypes.map(([p, f]) => `${p} (${f})`), []);
  const fromServe = reached("serve.ts");
  assert.ok(fromServe.has("hono"), [...fromServe.keys()].join(", "));
  assert.ok(reached("grpc.ts").has("@grpc/grpc-js"));
  // Chat templates and tokenizers are the OpenAI front end's alone.
  for (const own of ["@huggingface/jinja", "@huggingface/tokenizers"]) {
    assert.ok(reached("openai.ts").has(own), own);
    assert.ok(!fromServe.has(own), [...fromServe.keys()].join(", "));
    assert.ok(!reached("grpc.ts").has(own), own);
  }
});

test("serving/common/ imports no protocol", () => {
  const common = SERVING.filter((f) => f.startsWith("serving/common/"));
  const protocol = (t: string) => t.startsWith("serving/") && !t.startsWith("serving/common/");
  assert.deepEqual(offenders(common, protocol), []);
});

test("one protocol never imports another; KServe's transports never import each other", () => {
  const rooms = ["serving/kserve/http/", "serving/kserve/grpc/", "serving/openai/"];
  const roomOf = (path: string) =>
    rooms.find((r) => path.startsWith(r)) ??
      (path.startsWith("serving/kserve/") ? "serving/kserve/" : undefined);
  /** Where a room may reach in serving/ besides itself and serving/common/. */
  const below: Record<string, string | undefined> = {
    "serving/kserve/http/": "serving/kserve/",
    "serving/kserve/grpc/": "serving/kserve/",
  };
  const found = SERVING.flatMap((file) => {
    const room = roomOf(file);
    if (room === undefined) return [];
    return offenders([file], (t) => {
      const target = roomOf(t);
      return target !== undefined && target !== room && target !== below[room];
    });
  });
  assert.deepEqual(found, []);
});

/** The places allowed module-level state, with why. Each is process-wide by nature (a runtime, a
 * loaded library, a bound libc) or a cache of values that never change. */
const STATE_ALLOWED: Record<string, string> = {
  "src/half.ts": "a float32's bits, written and read within one conversion",
  "ffi/runtime.ts": "the runtime adapter (one per process, as the runtime is), and the " +
    "environment variables the runtime refused to read, named in a load error",
  "ffi/loader.ts": "one load per library path: dlopen and RTLD_NODELETE are process-wide",
  "ffi/cstring_cache.ts": "short strings encoded once, read-only bytes shared by every caller",
  "ffi/os.ts": "libc's calls bound once per runtime adapter",
  "ffi/cuda_ipc.ts": "the CUDA IPC calls bound once per CUDA runtime",
  "ffi/native/a64/cache_flush.ts": "the flush routine placed once per runtime adapter",
  "ffi/deno.ts": "libc's memmove bound at its first use, once per process",
  "ffi/bun.ts": "libc's memcpy bound at its first use, once per process",
  "ffi/node.ts": "libc's memcpy bound at its first use; koffi's prototype names, unique per " +
    "process; where this koffi build reads a callback's stack arguments, found once",
};

/** The top-level lines of `file` that declare mutable state. */
function stateIn(file: string): string[] {
  const found: string[] = [];
  readFileSync(join(root, file), "utf8").split("\n").forEach((line, i) => {
    const at = `${file}:${i + 1}: ${line.trim()}`;
    if (/^(export )?(let|var)\b/.test(line)) found.push(at);
    else if (/^(export )?const \w+(: [^=]+)? = (\[\]|\{\}|new Array\b)/.test(line)) found.push(at);
    else if (
      /^(export )?const \w+(: [^=]+)? = new (Big)?(Uint|Int|Float)\d+Array\((?!0\))/.test(line)
    ) {
      found.push(at);
    } else {
      const m = /^(export )?const \w+(?:: ([^=]+))? = new (Weak)?(Map|Set)\b/.exec(line);
      if (m && (m[3] !== undefined || !/^Readonly(Map|Set)</.test(m[2] ?? ""))) found.push(at);
    }
  });
  return found;
}

test("no module-level mutable state outside the places named, with the reason", () => {
  const files = [...BINDING, ...SERVING, ...ENTRIES];
  for (const place of Object.keys(STATE_ALLOWED)) {
    assert.ok(files.includes(place), `${place} is named but not found`);
    assert.notDeepEqual(stateIn(place), [], `${place} is named but keeps no state: unname it`);
  }
  const found = files.filter((f) => !(f in STATE_ALLOWED)).flatMap(stateIn);
  assert.deepEqual(found, []);
});

test("the code the package ships declares nothing with `using`: Node 22 cannot parse it", () => {
  // package.json's engines take Node 22.18, which strips types but has no `using` declarations
  // (Node 24 has): a shipped module with one fails to load there. Users' own code may use them.
  const files = [...BINDING, ...SERVING, ...ENTRIES, "types.ts", "cli.ts"];
  const found = files.flatMap((file) =>
    readFileSync(join(root, file), "utf8").split("\n").flatMap((line, i) =>
      /^\s*(await\s+)?using\s+[\w{[]/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
    )
  );
  assert.deepEqual(found, []);
});
