// The C declarations of Triton's in-process API, from the binding's own tables: ffi/symbols.ts
// (each function's FFI types, with the C declaration of every parameter and result in a comment)
// and ffi/enums.ts (the enum values). The fake core (tests/fake_core) and the C reference client
// (bench/native) compile against the header written here, so the C compiler checks their
// definitions and calls against the same table the binding loads.
//
// Reads the two .ts files as text (the C declarations exist only as comments, and the builds run
// on a Node that may not load .ts), checks every entry against the table's mapping conventions
// (conventionErrors) and refuses to write a header from a table that breaks them.
//
// Plain Node ESM (only node: built-ins): runs on Node, Deno and Bun.
// Usage: node tools/c_api.mjs [directory]   (writes tritonffi_c_api.h there; default .build/c_api)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The table's sources, relative to the repository root. */
export const SOURCES = ["ffi/symbols.ts", "ffi/enums.ts"];

/** Where the builds write the header, relative to the repository root. */
export const HEADER_DIR = ".build/c_api";
export const HEADER_NAME = "tritonffi_c_api.h";

/**
 * How each enum of ffi/enums.ts is spelled in C: its typedef name comes from the enum's doc
 * comment; its constants are this prefix followed by the key (`DataType.INT32` is
 * `TRITONSERVER_TYPE_INT32`).
 */
export const ENUM_PREFIX = {
  DataType: "TRITONSERVER_TYPE_",
  MemoryType: "TRITONSERVER_MEMORY_",
  ErrorCode: "TRITONSERVER_ERROR_",
  ParameterType: "TRITONSERVER_PARAMETER_",
  InstanceGroupKind: "TRITONSERVER_INSTANCEGROUPKIND_",
  LogLevel: "TRITONSERVER_LOG_",
  LogFormat: "TRITONSERVER_LOG_",
  ModelControlMode: "TRITONSERVER_MODEL_CONTROL_",
  RateLimitMode: "TRITONSERVER_RATE_LIMIT_",
  ModelBatchFlag: "TRITONSERVER_BATCH_",
  ModelIndexFlag: "TRITONSERVER_INDEX_FLAG_",
  ModelTxnPropertyFlag: "TRITONSERVER_TXN_",
  RequestFlag: "TRITONSERVER_REQUEST_FLAG_",
  RequestReleaseFlag: "TRITONSERVER_REQUEST_RELEASE_",
  ResponseCompleteFlag: "TRITONSERVER_RESPONSE_COMPLETE_",
  MetricFormat: "TRITONSERVER_METRIC_",
  MetricKind: "TRITONSERVER_METRIC_KIND_",
  TraceLevel: "TRITONSERVER_TRACE_LEVEL_",
  TraceActivity: "TRITONSERVER_TRACE_",
};

/**
 * @typedef {{ ffi: string, c: string, type: string, name: string }} Param
 *   `c` is the declaration as written ("const char* model_name"); `type` its normalized type
 *   ("const char*"), `name` the parameter name.
 * @typedef {{ ffi: string, type: string }} Result
 * @typedef {{ name: string, params: Param[], result: Result, since: number, mayBlock: boolean }} Fn
 * @typedef {{ key: string, name: string, params: Param[], result: Result }} Callback
 * @typedef {{ key: string, name: string, members: { key: string, value: number }[] }} Enum
 * @typedef {{ functions: Fn[], callbacks: Callback[], enums: Enum[],
 *   apiVersion: { major: number, minor: number } }} Table
 */

/** Normalizes a C type: no `struct`, single spaces, `*` attached to the type ("const char*"). */
export function normalizeType(type) {
  return type
    .replace(/\bstruct\s+/g, "")
    .replace(/\s*\*\s*/g, "*")
    .replace(/\s+/g, " ")
    .replace(/\*(?=\w)/g, "* ")
    .trim();
}

/** Splits "const int64_t* shape" into its normalized type and its name. */
export function splitDeclaration(decl) {
  const m = /^(.*?)\s*\b(\w+)\s*$/.exec(decl.trim());
  if (!m || m[1] === "") throw new Error(`not a C parameter declaration: "${decl}"`);
  return { type: normalizeType(m[1]), name: m[2] };
}

function parseParams(block, where) {
  const params = [];
  for (const line of block.split("\n")) {
    const t = line.trim();
    if (t === "") continue;
    const m = /^"(\w+)",\s*\/\/\s*(.+?)\s*$/.exec(t);
    if (!m) throw new Error(`${where}: cannot read parameter line "${t}"`);
    params.push({ ffi: m[1], c: m[2], ...splitDeclaration(m[2]) });
  }
  return params;
}

function parseResult(body, where) {
  const m = /^\s*result:\s*"(\w+)",(?:\s*\/\/\s*(.+?))?\s*$/m.exec(body);
  if (!m) throw new Error(`${where}: no result`);
  const type = m[2] === undefined ? m[1] : normalizeType(m[2]);
  if (m[2] === undefined && m[1] !== "void") {
    throw new Error(`${where}: the result needs its C type in a comment`);
  }
  return { ffi: m[1], type };
}

/** The entries of an object literal at two-space indentation: name, body, and the doc before. */
function entries(text) {
  const out = [];
  const re = /(?:\/\*\*\s*(.*?)\s*\*\/\s*\n)?^ {2}(\w+): \{\n([\s\S]*?)^ {2}\},$/gm;
  for (let m; (m = re.exec(text));) out.push({ doc: m[1] ?? "", key: m[2], body: m[3] });
  return out;
}

function between(text, start, end, file) {
  const a = text.indexOf(start);
  const b = text.indexOf(end, a);
  if (a < 0 || b < 0) throw new Error(`${file}: cannot find "${start}" ... "${end}"`);
  return text.slice(a + start.length, b);
}

/** Reads the table from ffi/symbols.ts and ffi/enums.ts (as text). */
export function readTable(dir = root) {
  const symbolsFile = join(dir, SOURCES[0]);
  const symbolsText = readFileSync(symbolsFile, "utf8");
  const fnText = between(symbolsText, "export const symbols = {\n", "\n} as const", SOURCES[0]);
  const functions = entries(fnText).map(({ key, body }) => {
    const where = `${SOURCES[0]} ${key}`;
    const p = /parameters: \[([\s\S]*?)\]/.exec(body);
    if (!p) throw new Error(`${where}: no parameters`);
    const since = /since: (\d+)/.exec(body);
    if (!since) throw new Error(`${where}: no since`);
    return {
      name: key,
      params: parseParams(p[1], where),
      result: parseResult(body, where),
      since: Number(since[1]),
      mayBlock: /mayBlock: true/.test(body),
    };
  });
  const cbText = between(symbolsText, "export const callbacks = {\n", "\n} as const", SOURCES[0]);
  const callbacks = entries(cbText).map(({ doc, key, body }) => {
    const where = `${SOURCES[0]} callbacks.${key}`;
    const name = /^(TRITONSERVER_\w+Fn_t):/.exec(doc)?.[1];
    if (!name) throw new Error(`${where}: the doc comment must start with the C typedef name`);
    const p = /parameters: \[([\s\S]*?)\]/.exec(body);
    if (!p) throw new Error(`${where}: no parameters`);
    return { key, name, params: parseParams(p[1], where), result: parseResult(body, where) };
  });

  const enumsText = readFileSync(join(dir, SOURCES[1]), "utf8");
  const v = /API_VERSION = \{ major: (\d+), minor: (\d+) \}/.exec(enumsText);
  if (!v) throw new Error(`${SOURCES[1]}: no API_VERSION`);
  const enums = [];
  const re =
    /\/\*\*\s*(TRITONSERVER_\w+):[^\n]*\*\/\nexport const (\w+) = \{\n([\s\S]*?)\n\} as const;/g;
  for (let m; (m = re.exec(enumsText));) {
    const members = m[3].split("\n").map((line) => {
      const e = /^\s*(\w+): (\d+),$/.exec(line);
      if (!e) throw new Error(`${SOURCES[1]} ${m[2]}: cannot read "${line.trim()}"`);
      return { key: e[1], value: Number(e[2]) };
    });
    enums.push({ key: m[2], name: m[1], members });
  }
  return { functions, callbacks, enums, apiVersion: { major: Number(v[1]), minor: Number(v[2]) } };
}

const SCALARS = {
  "bool": "bool",
  "int": "i32",
  "unsigned int": "u32",
  "uint32_t": "u32",
  "int64_t": "i64",
  "uint64_t": "u64",
  "size_t": "usize",
  "double": "f64",
};

/**
 * The FFI types the mapping conventions (the header of ffi/symbols.ts) allow for a C type.
 * @param {string} type a normalized C type
 * @param {"param" | "result" | "callback"} role a function parameter, a function result, or a
 *   callback parameter (which receives raw addresses: every pointer is "ptr")
 * @param {{ enums: Set<string>, callbacks: Set<string> }} names the enum and callback typedefs
 * @returns {string[]} the allowed FFI type names (empty: a C type the conventions do not cover)
 */
export function allowedFfiTypes(type, role, names) {
  const depth = (type.match(/\*/g) ?? []).length;
  const base = type.replace(/\*/g, "").replace(/\bconst\b/g, "").replace(/\s+/g, " ").trim();
  const isEnum = names.enums.has(base);
  if (depth === 0) {
    if (base === "void") return role === "result" ? ["void"] : [];
    if (isEnum) return ["u32"]; // C enums are int-sized and passed as "u32"
    if (names.callbacks.has(base)) return ["ptr"]; // function pointers
    const s = SCALARS[base];
    return s ? [s] : [];
  }
  if (role === "callback") return ["ptr"];
  const isHandle = /^TRITONSERVER_\w+$/.test(base) && !isEnum && !names.callbacks.has(base);
  if (depth === 1 && (isHandle || base === "void")) return ["ptr"]; // handles and void*
  if (depth === 1 && base === "char") {
    // a string; a byte buffer with a separate length; a returned string
    return role === "result" ? ["cstr"] : ["cstr", "buf"];
  }
  if (role === "result") return [];
  return ["buf"]; // out-parameters and input arrays
}

/** Every break of the mapping conventions in the table, one message each (empty when none). */
export function conventionErrors(table) {
  const names = {
    enums: new Set(table.enums.map((e) => e.name)),
    callbacks: new Set(table.callbacks.map((c) => c.name)),
  };
  const errors = [];
  const check = (where, ffi, type, role) => {
    const allowed = allowedFfiTypes(type, role, names);
    if (!allowed.includes(ffi)) {
      errors.push(
        `${where}: "${ffi}" for C type "${type}" (the conventions allow ${
          allowed.length ? allowed.map((a) => `"${a}"`).join(" or ") : "no FFI type"
        })`,
      );
    }
  };
  for (const f of table.functions) {
    f.params.forEach((p, i) =>
      check(`${f.name} parameter ${i} (${p.name})`, p.ffi, p.type, "param")
    );
    check(`${f.name} result`, f.result.ffi, f.result.type, "result");
  }
  for (const c of table.callbacks) {
    c.params.forEach((p, i) =>
      check(`${c.name} parameter ${i} (${p.name})`, p.ffi, p.type, "callback")
    );
    check(`${c.name} result`, c.result.ffi, c.result.type, "result");
  }
  for (const e of table.enums) {
    if (!(e.key in ENUM_PREFIX)) errors.push(`enum ${e.key}: no C constant prefix in ENUM_PREFIX`);
  }
  return errors;
}

/** The C header for `table`: handles, enums, callback typedefs and every function. */
export function cHeader(table) {
  const enumNames = new Set(table.enums.map((e) => e.name));
  const cbNames = new Set(table.callbacks.map((c) => c.name));
  const handles = new Set();
  for (const f of [...table.functions, ...table.callbacks]) {
    for (const t of [...f.params.map((p) => p.type), f.result.type]) {
      const base = t.replace(/\*/g, "").replace(/\bconst\b/g, "").trim();
      if (/^TRITONSERVER_\w+$/.test(base) && !enumNames.has(base) && !cbNames.has(base)) {
        handles.add(base);
      }
    }
  }
  // Types are normalized (no `struct`: the header typedefs every handle).
  const params = (ps) => ps.length ? ps.map((p) => `${p.type} ${p.name}`).join(", ") : "void";
  const lines = [
    "/* Generated by tools/c_api.mjs from ffi/symbols.ts and ffi/enums.ts; do not edit. */",
    "#ifndef TRITONFFI_C_API_H",
    "#define TRITONFFI_C_API_H",
    "",
    "#include <stdbool.h>",
    "#include <stddef.h>",
    "#include <stdint.h>",
    "",
    `#define TRITONFFI_API_VERSION_MAJOR ${table.apiVersion.major}`,
    `#define TRITONFFI_API_VERSION_MINOR ${table.apiVersion.minor}`,
    "",
    ...[...handles].sort().map((h) => `typedef struct ${h} ${h};`),
    "",
  ];
  for (const e of table.enums) {
    const prefix = ENUM_PREFIX[e.key];
    lines.push("typedef enum {");
    e.members.forEach((m, i) => {
      lines.push(`  ${prefix}${m.key} = ${m.value}${i + 1 < e.members.length ? "," : ""}`);
    });
    lines.push(`} ${e.name};`, "");
  }
  for (const c of table.callbacks) {
    lines.push(`typedef ${c.result.type} (*${c.name})(${params(c.params)});`);
  }
  lines.push(
    "",
    "/* One function type per function (NAME_fn): declares the function, or a pointer to it",
    " * for a client that resolves the library with dlsym (define TRITONFFI_NO_PROTOTYPES). */",
  );
  for (const f of table.functions) {
    lines.push(`typedef ${f.result.type} ${f.name}_fn(${params(f.params)});`);
  }
  lines.push("", "#ifndef TRITONFFI_NO_PROTOTYPES");
  for (const f of table.functions) lines.push(`${f.name}_fn ${f.name};`);
  lines.push("#endif", "", "/* X(name) for every function of the table. */");
  lines.push("#define TRITONFFI_FUNCTIONS(X) \\");
  table.functions.forEach((f, i) => {
    lines.push(`  X(${f.name})${i + 1 < table.functions.length ? " \\" : ""}`);
  });
  lines.push("", "#endif /* TRITONFFI_C_API_H */", "");
  return lines.join("\n");
}

/**
 * Writes the header into `dir` (default .build/c_api under the repository root), rewriting it
 * only when its text changes (so builds keyed on modification times stay up to date). Throws
 * listing every convention error. Returns the header's path.
 */
export function writeCHeader(dir = join(root, HEADER_DIR)) {
  const table = readTable();
  const errors = conventionErrors(table);
  if (errors.length > 0) {
    throw new Error(
      `ffi/symbols.ts breaks its mapping conventions:\n  ${errors.join("\n  ")}`,
    );
  }
  const text = cHeader(table);
  const out = join(dir, HEADER_NAME);
  if (!existsSync(out) || readFileSync(out, "utf8") !== text) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(out, text);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const out = writeCHeader(process.argv[2] ? resolve(process.argv[2]) : undefined);
    console.log(`c api: ${out}`);
  } catch (e) {
    console.error(`c api: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
