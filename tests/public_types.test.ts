/**
 * The public types are the API: the declarations the package ships (tsconfig.build.json, as
 * `npm run build` emits them, `@internal` members stripped) let a user reach nothing of `ffi/`
 * — no library handle, pointer or binding service — but the enums and names the API itself
 * names ({@link ALLOWED}).
 *
 * From the entries `dist/mod.d.ts`, `dist/serve.d.ts`, `dist/grpc.d.ts`, `dist/openai.d.ts` and
 * `dist/types.d.ts`, every relatively imported declaration file outside `dist/ffi/` is followed;
 * what one of them imports from `dist/ffi/` (statically, or as `import("…").Name` in a type) enters
 * `ffi/` by name,
 * and is followed there declaration by declaration: through its re-exports to where it is
 * declared, then to every `ffi/` declaration that declaration names. Each `ffi/` declaration reached must
 * be in {@link ALLOWED}. The emitted declarations must also type-check on their own (nothing they
 * name was stripped as `@internal`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { USER_PROGRAM_TSC_FLAGS } from "./support/tsc_flags.ts";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { ROOT as root } from "./support/source_files.ts";
import { toolchainBin } from "./runtime_command.mjs";

/** The entry points of the package (package.json `exports`). */
const ENTRIES = ["mod.d.ts", "serve.d.ts", "grpc.d.ts", "openai.d.ts", "types.d.ts"];

/**
 * The `ffi/` declarations the public declarations may reach, as `module.Name` (the module under
 * `ffi/`): Triton's data type, memory type and error code names (and the enum objects those
 * names are the keys of), the error classes users catch, the default library path `mod.ts`
 * exports, and the type of a response parameter's value.
 */
const ALLOWED = [
  "enums.DataType",
  "enums.DataTypeName",
  "enums.ErrorCode",
  "enums.ErrorCodeName",
  "enums.MemoryType",
  "enums.MemoryTypeName",
  "loader.DEFAULT_LIBRARY_PATH",
  "loader.LibraryLoadError",
  "response_fields.ParameterValue",
  "triton_error.TritonError",
];

const node = toolchainBin(root, "node");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

/** Runs tsc with the pinned node; fails the test with its output when it exits non-zero. */
function runTsc(args: string[], cwd: string): void {
  const r = spawnSync(node, [tsc, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  const how = `tsc ${args.join(" ")} exited ${r.status ?? r.signal}: ${r.error ?? ""}`;
  assert.equal(r.status, 0, `${how}\n${r.stdout}\n${r.stderr}`);
}

let emitted: string | undefined;

/** The package's declarations, emitted once into a scratch folder under .build/ (inside the
 * repository, so that the declarations' own imports of dependencies resolve). */
function declarations(): string {
  if (emitted) return emitted;
  mkdirSync(join(root, ".build"), { recursive: true });
  const out = mkdtempSync(join(root, ".build", "public-types-"));
  runTsc(
    ["-p", join(root, "tsconfig.build.json"), "--outDir", out, "--emitDeclarationOnly"],
    root,
  );
  return (emitted = out);
}

after(() => {
  if (emitted) rmSync(emitted, { recursive: true, force: true });
});

/** A declaration file's text without comments and string literals' contents (which name
 * nothing), module specifiers kept. */
function code(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

/** An import or export clause: `* as ns`, `*`, `Default`, `{ a, type b as c }`, or a mix. Each
 * binding as [imported name, local name]; `*` for a whole module. */
function bindings(clause: string): [string, string][] {
  const out: [string, string][] = [];
  const braces = /\{([^}]*)\}/.exec(clause);
  if (braces) {
    for (const part of braces[1].split(",")) {
      const words = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/);
      if (words[0]) out.push([words[0], words[1] ?? words[0]]);
    }
  }
  const rest = clause.replace(/\{[^}]*\}/, "").replace(/^\s*type\s+/, "");
  const star = /\*(?:\s+as\s+([\w$]+))?/.exec(rest);
  if (star) out.push(["*", star[1] ?? "*"]);
  const def = /^\s*([\w$]+)\s*(?:,|$)/.exec(rest);
  if (def) out.push(["default", def[1]]);
  return out;
}

interface ModuleRef {
  /** The target declaration file. */
  readonly file: string;
  readonly kind: "import" | "export";
  /** [imported name, local or exported name]; `*` for the whole module. */
  readonly names: [string, string][];
}

/** The declaration file a relative specifier in `from` names. */
function resolveSpecifier(from: string, specifier: string): string {
  const base = join(dirname(from), specifier);
  for (const candidate of [base.replace(/\.[cm]?[jt]s$/, "") + ".d.ts", join(base, "index.d.ts")]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${from}: no declaration file for '${specifier}'`);
}

/** The relative imports and re-exports of a declaration file. */
function moduleRefs(file: string, text: string): ModuleRef[] {
  const refs: ModuleRef[] = [];
  const statement = /\b(import|export)\s+(?:type\s+)?([^;'"]*?)\s+from\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(statement)) {
    if (!m[3].startsWith(".")) continue;
    refs.push({
      file: resolveSpecifier(file, m[3]),
      kind: m[1] as "import" | "export",
      names: bindings(m[2]),
    });
  }
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)(?:\.([\w$]+))?/g)) {
    if (!m[1].startsWith(".")) continue;
    const name = m[2] ?? "*";
    refs.push({ file: resolveSpecifier(file, m[1]), kind: "import", names: [[name, name]] });
  }
  return refs;
}

/** Where `text` declares `name` at the top level, or null. */
function declarationOf(text: string, name: string): RegExpExecArray | null {
  return new RegExp(
    String.raw`^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?` +
      String.raw`(?:class|interface|type|const|let|var|function|enum|namespace)\s+` +
      name.replace(/\$/g, "\\$") + String.raw`\b`,
    "m",
  ).exec(text);
}

/** Every `ffi/` declaration reachable from the entries of the declarations under `dist`, as
 * `module.Name` → what it was reached from (a public declaration file or another key). */
function reachableFfi(dist: string): Map<string, string> {
  const ffiDir = join(dist, "ffi");
  const inFfi = (file: string) => !relative(ffiDir, file).startsWith("..");
  const keyOf = (file: string, name: string) =>
    `${relative(ffiDir, file).replace(/\.d\.ts$/, "")}.${name}`;
  const texts = new Map<string, string>();
  const text = (file: string) => {
    let t = texts.get(file);
    if (t === undefined) texts.set(file, t = code(file));
    return t;
  };
  const reached = new Map<string, string>();

  /** Marks `name` of ffi `file` reached (from `via`), and what its declaration names. */
  const enter = (file: string, name: string, via: string): void => {
    const t = text(file);
    if (name === "*") {
      if (!reached.has(keyOf(file, "*"))) reached.set(keyOf(file, "*"), via);
      return;
    }
    const declaration = declarationOf(t, name);
    if (declaration) {
      const key = keyOf(file, name);
      if (reached.has(key)) return;
      reached.set(key, via);
      // The declaration runs until the next statement at column 0 (tsc indents the rest).
      const start = declaration.index;
      const next = /^[^\s})\]|&]/m.exec(t.slice(start + declaration[0].length));
      const body = t.slice(start, next ? start + declaration[0].length + next.index : undefined)
        .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
      const refs = moduleRefs(file, t).filter((r) => r.kind === "import");
      for (const ident of new Set(body.match(/[A-Za-z_$][\w$]*/g))) {
        if (ident === name) continue;
        const imported = refs.find((r) => r.names.some(([, local]) => local === ident));
        if (imported) {
          const [orig] = imported.names.find(([, local]) => local === ident)!;
          if (inFfi(imported.file)) enter(imported.file, orig, key);
        } else if (declarationOf(t, ident)) {
          enter(file, ident, key);
        }
      }
      return;
    }
    // Not declared here: a re-export, named or `*`.
    const exports = moduleRefs(file, t).filter((r) => r.kind === "export");
    const named = exports.find((r) => r.names.some(([, exported]) => exported === name));
    if (named) {
      const [orig] = named.names.find(([, exported]) => exported === name)!;
      return enter(named.file, orig, via);
    }
    // `export { a as b };` of a name imported here.
    for (const local of t.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}\s*;/g)) {
      const exported = bindings(`{${local[1]}}`).find(([, e]) => e === name);
      const imported = exported &&
        moduleRefs(file, t).find((r) =>
          r.kind === "import" && r.names.some(([, l]) => l === exported[0])
        );
      if (imported) {
        const [orig] = imported.names.find(([, l]) => l === exported[0])!;
        return enter(imported.file, orig, via);
      }
    }
    for (const star of exports.filter((r) => r.names.some(([n]) => n === "*"))) {
      if (exportsName(star.file, name)) return enter(star.file, name, via);
    }
    throw new Error(`${relative(dist, file)}: cannot find the declaration of ${name}`);
  };

  /** Whether ffi `file` declares or re-exports `name`. */
  const exportsName = (file: string, name: string): boolean => {
    const t = text(file);
    if (declarationOf(t, name)) return true;
    return moduleRefs(file, t).some((r) =>
      r.kind === "export" &&
      (r.names.some(([, exported]) => exported === name) ||
        (r.names.some(([n]) => n === "*") && exportsName(r.file, name)))
    );
  };

  // The public declaration files: every relative import outside ffi/ from the entries.
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const ref of moduleRefs(file, text(file))) {
      if (!inFfi(ref.file)) walk(ref.file);
      else for (const [name] of ref.names) enter(ref.file, name, relative(dist, file));
    }
  };
  for (const entry of ENTRIES) walk(join(dist, entry));
  return reached;
}

/** `key`, and how it was reached, back to the public declaration file it was reached from. */
function path(reached: Map<string, string>, key: string): string {
  const steps = [key];
  let via = reached.get(key);
  while (via !== undefined && steps.length < 20) {
    steps.push(via);
    via = reached.get(via);
  }
  return steps.join(" ← ");
}

// Does not depend on the runtime or callback path: `npm test` runs it in its first run only.
const skip = process.env.TEST_PACKAGE === "0" && "npm test runs it in its first run";

test("the public declarations reach nothing of ffi/ but the names the API names", {
  skip,
  timeout: 120_000,
}, () => {
  const reached = reachableFfi(declarations());
  const extra = [...reached.keys()].filter((key) => !ALLOWED.includes(key)).sort();
  assert.deepEqual(
    extra,
    [],
    `ffi/ declarations reachable from ${ENTRIES.join(", ")} (a user could name them):\n  ` +
      extra.map((key) => path(reached, key)).join("\n  "),
  );
  // Each allowed name is still what the API names (else the list has gone stale).
  const unused = ALLOWED.filter((key) => !reached.has(key));
  assert.deepEqual(unused, [], "allowed but no longer reached: drop them from ALLOWED");
});

test("the public declarations type-check on their own", { skip, timeout: 120_000 }, () => {
  const dist = declarations();
  runTsc([...USER_PROGRAM_TSC_FLAGS, ...ENTRIES], dist);
});
