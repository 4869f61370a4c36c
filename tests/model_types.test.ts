/**
 * Models typed from their configuration: the protobuf text format reader, the declarations
 * `tritonffi types` writes (for every model of tests/models and the OCR example's pipeline, they
 * must say what the running core reports: its configuration and its metadata), the command
 * itself, the compiler's verdicts on tests/typed_models_check.ts (`deno check`, and `tsc` against
 * the package's declarations), and a property test over generated configurations (fast-check):
 * each reads back as it was written, and its declaration compiles and types requests and
 * responses by it.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 150) and `FUZZ_SEED=s` run more or other cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import fc from "fast-check";
import { test } from "./support/test.ts";
import { MODEL_REPOSITORY, startServer } from "./support/env.ts";
import { ROOT as root } from "./support/source_files.ts";
import { toolchainBin } from "./runtime_command.mjs";
import { isTritonError } from "./support/assertions.ts";
import { USER_PROGRAM_TSC_FLAGS } from "./support/tsc_flags.ts";
import { DATA_TYPES } from "../src/dtypes.ts";
import type { DataTypeName } from "../mod.ts";
import {
  describeModel,
  type ModelDescription,
  parseModelConfig,
  parseTextFormat,
  renderDeclarations,
  repositoryDeclarations,
  serverDeclarations,
} from "../types.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261205);
const node = toolchainBin(root, "node");
const deno = toolchainBin(root, "deno");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

/** Runs a command; fails the test with its output when it exits non-zero. */
function run(cmd: string, args: string[], cwd = root): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 180_000 });
  assert.equal(
    r.status,
    0,
    `${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}: ${
      r.error ?? ""
    }\n${r.stdout}\n${r.stderr}`,
  );
  return r.stdout;
}

// ---------------------------------------------------------------------------------------------
// The text format reader
// ---------------------------------------------------------------------------------------------

test("text format: fields, nested messages, lists, comments and separators", () => {
  const config = parseModelConfig(`# a comment
name: "m"  # after a field
backend: 'python'; max_batch_size: 8,
model_transaction_policy: { decoupled: True }
input [
  { name: "A", data_type: TYPE_FP32, dims: [ -1, 3 ], optional: true },
  { name: "B" data_type: TYPE_STRING dims: 1 dims: 2 reshape < shape: [ ] > }
]
input { name: "C" data_type: TYPE_BOOL dims: [] optional: 1 }
output [ { name: "OUT", data_type: TYPE_INT64, dims: [ 0x10 ], label_filename: "l.txt" } ]
parameters { key: "k1" value: { string_value: "v1" } }
parameters [ { key: "k2", value { string_value: "v" "2" } } ]
instance_group [ { kind: KIND_CPU, count: 2, gpus: [ 0, 1 ] } ]
dynamic_batching { preferred_batch_size: 4 max_queue_delay_microseconds: 100 }
`);
  assert.deepEqual(config, {
    name: "m",
    backend: "python",
    max_batch_size: 8,
    model_transaction_policy: { decoupled: true },
    input: [
      { name: "A", data_type: "TYPE_FP32", dims: [-1, 3], optional: true },
      { name: "B", data_type: "TYPE_STRING", dims: [1, 2], reshape: {} },
      { name: "C", data_type: "TYPE_BOOL", optional: true },
    ],
    output: [{ name: "OUT", data_type: "TYPE_INT64", dims: [16], label_filename: "l.txt" }],
    parameters: { k1: { string_value: "v1" }, k2: { string_value: "v2" } },
    instance_group: [{ kind: "KIND_CPU", count: 2, gpus: [0, 1] }],
    dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 100 },
  });
});

test("text format: string escapes and numbers", () => {
  const m = parseTextFormat(
    String
      .raw`s: "a\"b\\c\n\t\x41\101\u00e9\U0001F600'" t: 'it''s' n: -1.5e3 h: -0x1F o: 017 f: 2.5f i: -inf e: ENUM_1 z: 0`,
  );
  const values = Object.fromEntries(
    m.fields.map((f) => [f.name, f.value.kind === "message" ? undefined : f.value.value]),
  );
  assert.deepEqual(values, {
    s: "a\"b\\c\n\tAAé😀'",
    t: "its",
    n: -1500,
    h: -31,
    o: 15,
    f: 2.5,
    i: -Infinity,
    e: "ENUM_1",
    z: 0,
  });
  // Escaped bytes are UTF-8, as protobuf's strings are.
  const utf8 = parseTextFormat(String.raw`s: "\303\251"`).fields[0].value;
  assert.deepEqual(utf8, { kind: "string", value: "é" });
});

test("text format: what is not text format is INVALID_ARG naming the line and column", () => {
  const cases: [string, RegExp][] = [
    ['name: "unterminated\n', /^f:1:7: unterminated string/],
    ['input [ { name: "A" }\n', /^f:2:1: expected ',' or ']' in the list of 'input'/],
    ['input {\n  name: "A"\n', /^f:3:1: expected '}' before the end/],
    ['name "A"', /^f:1:6: expected ':' after field 'name'/],
    ["name: ", /^f:1:7: expected a value before the end/],
    ["name: }", /^f:1:7: expected a value/],
    ["9name: 1", /^f:1:1: expected a field name/],
    [String.raw`s: "\q"`, /^f:1:5: unknown escape \\q/],
    ["parameters: 3", /^f:1: 'parameters' is a map/],
    ["a { ".repeat(101), /^f:1:404: messages nested deeper than 100/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseModelConfig(text, "f"),
      isTritonError("INVALID_ARG", message),
      JSON.stringify(text),
    );
  }
});

test("text format: a field or map key named __proto__ is a field like any other", () => {
  const config = parseModelConfig(
    '__proto__ { a: 1 } parameters { key: "__proto__" value { string_value: "v" } }',
  );
  assert.deepEqual(Object.keys(config), ["__proto__", "parameters"]);
  assert.equal(Object.getPrototypeOf(config), Object.prototype);
  assert.deepEqual(
    describeModel({ ...config, name: "m" }).parameters,
    JSON.parse('{"__proto__":"v"}'),
  );
});

test("describeModel: data types, the batch dimension, optional inputs, decoupled, parameters", () => {
  const d = describeModel({
    name: "m",
    backend: "identity",
    max_batch_size: 4,
    input: [{ name: "S", data_type: "TYPE_STRING", dims: [2], optional: true }],
    output: [{ name: "O", data_type: "TYPE_BF16", dims: [-1], label_filename: "labels.txt" }],
    model_transaction_policy: { decoupled: true },
    parameters: { p: { string_value: "1" } },
  });
  assert.deepEqual(d, {
    name: "m",
    backend: "identity",
    platform: "",
    maxBatchSize: 4,
    decoupled: true,
    inputs: [{
      name: "S",
      datatype: "BYTES",
      dims: [2],
      shape: [-1, 2],
      optional: true,
      shapeTensor: false,
    }],
    outputs: [{
      name: "O",
      datatype: "BF16",
      dims: [-1],
      shape: [-1, -1],
      optional: false,
      shapeTensor: false,
      labels: "labels.txt",
    }],
    parameters: { p: "1" },
  });
  assert.throws(
    () => describeModel({ name: "m", input: [{ name: "X", data_type: "TYPE_INVALID", dims: [] }] }),
    isTritonError("INVALID_ARG", /model 'm': input 'X' has data type/),
  );
});

// ---------------------------------------------------------------------------------------------
// Declarations against the running core
// ---------------------------------------------------------------------------------------------

/** A repository with the OCR example's pipeline model (its config.pbtxt and model.py). */
function ocrPipelineRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-types-"));
  const model = join(dir, "ocr_pipeline");
  mkdirSync(join(model, "1"), { recursive: true });
  const example = join(root, "examples", "ocr", "ocr_pipeline");
  copyFileSync(join(example, "config.pbtxt"), join(model, "config.pbtxt"));
  copyFileSync(join(example, "model.py"), join(model, "1", "model.py"));
  return dir;
}

test("the declarations of tests/models and the OCR pipeline say what the running core reports", {
  timeout: 120_000,
}, async () => {
  const ocr = ocrPipelineRepository();
  try {
    const fromFiles = await repositoryDeclarations([MODEL_REPOSITORY, ocr]);
    assert.ok(fromFiles.models.length >= 24, `${fromFiles.models.length} models`);
    assert.ok(fromFiles.models.some((m) => m.name === "ocr_pipeline"));
    assert.deepEqual(fromFiles.skipped, []);
    // A real core may lack a model's backend (python): the others still load and are compared.
    const server = await startServer(
      { modelRepository: [MODEL_REPOSITORY, ocr], exitOnError: false, strictReadiness: false },
    );
    try {
      const fromServer = serverDeclarations(server);
      const served = new Map(fromServer.models.map((m) => [m.name, m]));
      const compared: string[] = [];
      for (const declared of fromFiles.models) {
        const running = served.get(declared.name);
        if (running === undefined) continue; // not ready on this core (a backend it lacks)
        // What the core completed of the configuration says the same as config.pbtxt.
        assert.deepEqual(running, declared, declared.name);
        // And so does the model's metadata (names, data types, shapes with -1 for the batch).
        const meta = server.model(declared.name).metadata();
        const tensors = (
          ts: readonly { name: string; datatype: string; shape: readonly number[] }[],
        ) => ts.map(({ name, datatype, shape }) => ({ name, datatype, shape }));
        assert.deepEqual(
          tensors(meta.inputs),
          declared.inputs.map(({ name, datatype, shape }) => ({ name, datatype, shape })),
          `${declared.name} inputs`,
        );
        assert.deepEqual(
          tensors(meta.outputs),
          declared.outputs.map(({ name, datatype, shape }) => ({ name, datatype, shape })),
          `${declared.name} outputs`,
        );
        assert.equal(
          server.model(declared.name).transactionProperties().decoupled,
          declared.decoupled,
          `${declared.name} decoupled`,
        );
        compared.push(declared.name);
      }
      // The fake core runs every model; a real core at least those of the identity and repeat
      // backends (the python backend's need it built).
      for (const name of ["identity_fp32", "identity_bytes", "labels_fp32", "repeat_int32"]) {
        assert.ok(compared.includes(name), `${name} compared (${compared.join(", ")})`);
      }
      if (process.env.TRITONSERVER_LIB?.includes(".build/fake_core")) {
        assert.equal(compared.length, fromFiles.models.length, compared.join(", "));
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(ocr, { recursive: true, force: true });
  }
});

test("examples/models.d.ts is what `tritonffi types tests/models` writes now", {
  skip: process.env.TRITONFFI_TEST_MODELS !== undefined && "a model repository of its own",
}, async () => {
  const { models, skipped } = await repositoryDeclarations([join(root, "tests", "models")]);
  const text = renderDeclarations(models, { source: "tritonffi types tests/models", skipped });
  assert.equal(
    readFileSync(join(root, "examples", "models.d.ts"), "utf8"),
    text,
    "generate it again: node cli.ts types tests/models > examples/models.d.ts",
  );
});

test("the tritonffi command: types to standard output or a file, usage and errors", {
  timeout: 60_000,
}, () => {
  const cli = (...args: string[]) =>
    spawnSync(node, ["cli.ts", ...args], { cwd: root, encoding: "utf8", timeout: 60_000 });
  const ok = cli("types", "tests/models");
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, readFileSync(join(root, "examples", "models.d.ts"), "utf8"));
  const scratch = mkdtempSync(join(tmpdir(), "tritonffi-types-"));
  try {
    const out = join(scratch, "models.d.ts");
    const written = cli("types", "--out", out, "tests/models");
    assert.equal(written.status, 0, written.stderr);
    assert.equal(readFileSync(out, "utf8"), ok.stdout);
    // A model without config.pbtxt is left out, and said so.
    mkdirSync(join(scratch, "repo", "auto", "1"), { recursive: true });
    mkdirSync(join(scratch, "repo", "bad", "1"), { recursive: true });
    const skipped = cli("types", join(scratch, "repo"));
    assert.equal(skipped.status, 0, skipped.stderr);
    assert.match(skipped.stderr, /auto: no config\.pbtxt/);
    assert.match(skipped.stdout, /\/\/ Not declared: auto: no config\.pbtxt/);
    writeFileSync(join(scratch, "repo", "bad", "config.pbtxt"), 'name: "bad"\ninput [ {');
    const bad = cli("types", join(scratch, "repo"));
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /bad\/config\.pbtxt:2:10: expected '}' before the end/);
    assert.equal(bad.stdout, "");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  // --server: the same declarations, as the core under test runs the models (on a real core
  // without the python backend, its models are left out and named).
  const served = cli("types", "--server", "tests/models");
  assert.equal(served.status, 0, served.stderr);
  const body = (text: string) => text.slice(text.indexOf("export interface Models"));
  if (process.env.TRITONSERVER_LIB?.includes(".build/fake_core")) {
    assert.equal(body(served.stdout), body(ok.stdout));
    assert.equal(served.stderr, "");
  } else {
    assert.match(served.stdout, /^ {2}identity_fp32: \{$/m);
  }
  assert.match(served.stdout, /^\/\/ Generated by tritonffi types --server tests\/models;/);
  assert.equal(cli("types").status, 2);
  assert.equal(cli("typo").status, 2);
  assert.equal(cli("types", "--nope", "x").status, 2);
  const missing = cli("types", "/nonexistent/models");
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /model repository '\/nonexistent\/models' cannot be read/);
});

// ---------------------------------------------------------------------------------------------
// The compilers' verdicts
// ---------------------------------------------------------------------------------------------

// The same on every runner: `npm test` runs these in its first run only.
const compileSkip = process.env.TEST_PACKAGE === "0" && "npm test runs it in its first run";

test("deno check and tsc accept the typed requests and refuse each @ts-expect-error line", {
  skip: compileSkip,
  timeout: 300_000,
}, () => {
  run(deno, ["check", "tests/typed_models_check.ts"]);
  // tsc, against the declarations the package ships (as npm run build emits them).
  mkdirSync(join(root, ".build"), { recursive: true });
  const out = mkdtempSync(join(root, ".build", "typed-models-"));
  try {
    run(node, [tsc, "-p", "tsconfig.build.json", "--outDir", out, "--emitDeclarationOnly"]);
    mkdirSync(join(out, "tests"));
    mkdirSync(join(out, "examples"));
    copyFileSync(join(root, "examples", "models.d.ts"), join(out, "examples", "models.d.ts"));
    const check = readFileSync(join(root, "tests", "typed_models_check.ts"), "utf8");
    assert.match(check, /from "\.\.\/mod\.ts"/);
    writeFileSync(
      join(out, "tests", "typed_models_check.ts"),
      check.replace('from "../mod.ts"', 'from "../mod.js"'),
    );
    run(node, [tsc, ...USER_PROGRAM_TSC_FLAGS, "tests/typed_models_check.ts"], out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// Generated configurations
// ---------------------------------------------------------------------------------------------

/** Every data type the binding knows (its table of them). */
const DATA_TYPE_NAMES = Object.keys(DATA_TYPES) as DataTypeName[];

/** A tensor name: an identifier, or one that must be quoted as a property. */
const tensorName = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
  fc.stringMatching(/^[a-z][a-z0-9]{0,4}[-.:/ ][a-z0-9]{1,4}$/),
);

interface GeneratedTensor {
  name: string;
  datatype: DataTypeName;
  dims: number[];
  optional: boolean;
}

interface GeneratedModel {
  backend: string;
  maxBatchSize: number;
  decoupled: boolean;
  inputs: GeneratedTensor[];
  outputs: GeneratedTensor[];
  parameters: [string, string][];
}

const tensor = (optional: boolean) =>
  fc.record({
    name: tensorName,
    datatype: fc.constantFrom(...DATA_TYPE_NAMES),
    dims: fc.array(fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 64 })), { maxLength: 3 }),
    optional: optional ? fc.boolean() : fc.constant(false),
  });

const uniqueTensors = (optional: boolean) =>
  fc.uniqueArray(tensor(optional), { minLength: 1, maxLength: 4, selector: (t) => t.name });

const generatedModel: fc.Arbitrary<GeneratedModel> = fc.record({
  backend: fc.constantFrom("identity", "python", "onnxruntime"),
  maxBatchSize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 16 })),
  decoupled: fc.boolean(),
  inputs: uniqueTensors(true),
  outputs: uniqueTensors(false),
  parameters: fc.uniqueArray(
    fc.tuple(fc.stringMatching(/^[a-z_]{1,6}$/), fc.string({ maxLength: 8 })),
    { maxLength: 2, selector: ([k]) => k },
  ),
});

/** How a generated configuration is written: which of text format's equivalent forms. */
interface Style {
  list: boolean;
  quote: '"' | "'";
  separator: "" | "," | ";";
  comment: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  list: fc.boolean(),
  quote: fc.constantFrom('"', "'"),
  separator: fc.constantFrom("", ",", ";"),
  comment: fc.boolean(),
});

/** A string literal of text format, escaping what needs it (as octal bytes past ASCII). */
function literal(s: string, quote: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (c === quote || c === "\\") out += `\\${c}`;
    else if (byte >= 0x20 && byte < 0x7f) out += c;
    else out += `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `${quote}${out}${quote}`;
}

/** `m` as a config.pbtxt written in style `s`. */
function pbtxt(name: string, m: GeneratedModel, s: Style): string {
  const q = (v: string) => literal(v, s.quote);
  const sep = s.separator;
  const tensorText = (t: GeneratedTensor) =>
    `{ name: ${q(t.name)}${sep} data_type: TYPE_${
      t.datatype === "BYTES" ? "STRING" : t.datatype
    }${sep} ` +
    `dims: [ ${t.dims.join(", ")} ]${t.optional ? `${sep} optional: true` : ""} }`;
  const repeated = (field: string, ts: GeneratedTensor[]) =>
    s.list
      ? `${field} [\n  ${ts.map(tensorText).join(",\n  ")}\n]`
      : ts.map((t) => `${field} ${tensorText(t)}`).join("\n");
  return [
    s.comment ? "# generated" : "",
    `name: ${q(name)}`,
    `backend: ${q(m.backend)}`,
    `max_batch_size: ${m.maxBatchSize}`,
    m.decoupled ? "model_transaction_policy { decoupled: true }" : "",
    repeated("input", m.inputs),
    repeated("output", m.outputs),
    ...m.parameters.map(([k, v]) => `parameters { key: ${q(k)} value: { string_value: ${q(v)} } }`),
  ].join("\n");
}

/** What `describeModel` must make of generated model `m`. */
function expected(name: string, m: GeneratedModel): ModelDescription {
  const t = (x: GeneratedTensor, input: boolean) => ({
    name: x.name,
    datatype: x.datatype,
    dims: x.dims,
    shape: m.maxBatchSize > 0 ? [-1, ...x.dims] : x.dims,
    optional: input && x.optional,
    shapeTensor: false,
  });
  return {
    name,
    backend: m.backend,
    platform: "",
    maxBatchSize: m.maxBatchSize,
    decoupled: m.decoupled,
    inputs: m.inputs.map((x) => t(x, true)),
    outputs: m.outputs.map((x) => t(x, false)),
    parameters: Object.fromEntries(m.parameters),
  };
}

test("property: a generated config.pbtxt, in any of text format's forms, reads as written", () => {
  fc.assert(
    fc.property(generatedModel, style, (m, s) => {
      const text = pbtxt("generated", m, s);
      assert.deepEqual(describeModel(parseModelConfig(text)), expected("generated", m), text);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
});

test("property: any text is read, or refused with INVALID_ARG, never another error", () => {
  const pieces = fc.constantFrom(
    "name",
    ":",
    " ",
    "\n",
    "{",
    "}",
    "<",
    ">",
    "[",
    "]",
    ",",
    ";",
    '"',
    "'",
    "\\",
    "#",
    "-",
    "0x",
    "1",
    "2.5e",
    "inf",
    "TYPE_FP32",
    "dims",
    "parameters",
    "key",
    "value",
    "\\x4",
    "\\u12",
    "\\777",
  );
  const text = fc.oneof(
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.array(pieces, { maxLength: 40 }).map((p) => p.join("")),
  );
  fc.assert(
    fc.property(text, (t) => {
      try {
        parseModelConfig(t, "f");
      } catch (e) {
        isTritonError("INVALID_ARG", /^f:\d+/)(e);
      }
    }),
    { numRuns: RUNS * 4, seed: SEED, endOnFailure: true },
  );
});

test("property: parameters of any Unicode text read back as written", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.constantFrom('"', "'"),
      (value, quote) => {
        const config = parseModelConfig(
          `parameters { key: "k" value { string_value: ${literal(value, quote)} } }`,
        );
        assert.deepEqual(config.parameters, { k: { string_value: value } });
      },
    ),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
});

/** A value a typed request takes for an input of data type `d`. */
const GOOD: Record<DataTypeName, string> = {
  BOOL: "[true]",
  UINT8: "new Uint8Array(1)",
  UINT16: "new Uint16Array(1)",
  UINT32: "new Uint32Array(1)",
  UINT64: "new BigUint64Array(1)",
  INT8: "new Int8Array(1)",
  INT16: "new Int16Array(1)",
  INT32: "new Int32Array(1)",
  INT64: "new BigInt64Array(1)",
  FP16: "new Float16Array(1)",
  FP32: "new Float32Array(1)",
  FP64: "new Float64Array(1)",
  BYTES: '["s"]',
  BF16: '{ dtype: "BF16", data: [1] }',
};

/** The type of an output's `data` of data type `d`. */
const DATA: Record<DataTypeName, string> = {
  BOOL: "Uint8Array",
  UINT8: "Uint8Array",
  UINT16: "Uint16Array",
  UINT32: "Uint32Array",
  UINT64: "BigUint64Array",
  INT8: "Int8Array",
  INT16: "Int16Array",
  INT32: "Int32Array",
  INT64: "BigInt64Array",
  FP16: "Float16Array | Uint16Array",
  FP32: "Float32Array",
  FP64: "Float64Array",
  BYTES: "Uint8Array[]",
  BF16: "Uint16Array",
};

/** A program that uses model `name`, declared from `m`, as the compiler must type it. */
function usage(name: string, m: GeneratedModel, i: number): string {
  const prop = (n: string) => JSON.stringify(n);
  const required = m.inputs.filter((t) => !t.optional);
  const inputs = `{ ${required.map((t) => `${prop(t.name)}: ${GOOD[t.datatype]}`).join(", ")} }`;
  const first = m.inputs[0];
  const wrong = first.datatype === "FP64" ? "new Float32Array(1)" : "new Float64Array(1)";
  const wrongInputs = `{ ${
    m.inputs.map((t) => `${prop(t.name)}: ${t === first ? wrong : GOOD[t.datatype]}`).join(", ")
  } }`;
  const lines = [
    `export async function use${i}(server: Server<Models>): Promise<void> {`,
    `  const model = server.model(${prop(name)});`,
    `  for await (const r of model.infer({ inputs: ${inputs} })) {`,
    ...m.outputs.map((t, j) =>
      `    const o${j}: ${DATA[t.datatype]} = r.output(${prop(t.name)}).data;`
    ),
    ...m.outputs.map((_, j) => `    console.log(o${j});`),
    "    // @ts-expect-error a name the model has not",
    `    r.output(${prop(m.outputs.map((t) => t.name).join("") + "_")});`,
    "  }",
    "  // @ts-expect-error an array of another data type",
    `  model.infer({ inputs: ${wrongInputs} });`,
  ];
  if (m.decoupled) lines.push("  // @ts-expect-error inferOne on a decoupled model");
  lines.push(`  await model.inferOne({ inputs: ${inputs} });`, "}");
  return lines.join("\n");
}

test("property: generated declarations compile and type requests and responses by them", {
  skip: compileSkip,
  timeout: 300_000,
}, async () => {
  const models = fc.sample(generatedModel, { numRuns: 40, seed: SEED });
  // Outside the repository: deno.json leaves .build/ out of what `deno check` checks.
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-typed-property-"));
  try {
    const repo = join(dir, "models");
    models.forEach((m, i) => {
      const name = i % 3 === 0 ? `model-${i}.v1` : `model_${i}`;
      mkdirSync(join(repo, name, "1"), { recursive: true });
      writeFileSync(
        join(repo, name, "config.pbtxt"),
        pbtxt(name, m, { ...defaultStyle, list: i % 2 === 0 }),
      );
    });
    const declared = await repositoryDeclarations([repo]);
    assert.equal(declared.models.length, models.length);
    for (const d of declared.models) {
      const i = Number(/\d+/.exec(d.name)![0]);
      assert.deepEqual(d, expected(d.name, models[i]), d.name);
    }
    writeFileSync(join(dir, "models.d.ts"), declared.text);
    const program = [
      `import { Server } from ${JSON.stringify(new URL("../mod.ts", import.meta.url).href)};`,
      'import type { Models } from "./models.d.ts";',
      "",
      ...declared.models.map((d) =>
        usage(d.name, models[Number(/\d+/.exec(d.name)![0])], Number(/\d+/.exec(d.name)![0]))
      ),
      "",
    ].join("\n");
    writeFileSync(join(dir, "use.ts"), program);
    run(deno, ["check", join(dir, "use.ts")]);
    // As `deno fmt` would write it (the project's line width), so that it can be committed.
    const formatted = spawnSync(deno, ["fmt", "--line-width", "100", "--ext", "ts", "-"], {
      input: declared.text,
      encoding: "utf8",
    });
    assert.equal(formatted.status, 0, formatted.stderr);
    assert.equal(declared.text, formatted.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const defaultStyle: Style = { list: true, quote: '"', separator: "", comment: false };
