/**
 * The C declarations tools/c_api.mjs generates for the fake core and the C reference client come
 * from reading ffi/symbols.ts and ffi/enums.ts as text; this checks that reading against the
 * tables the binding imports, and that the mapping conventions catch a wrong FFI type.
 *
 * `deno test -A tests/c_api.test.ts`, `bun test tests/c_api.test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import * as enums from "../ffi/enums.ts";
import { callbacks, symbols } from "../ffi/symbols.ts";
import { cHeader, conventionErrors, ENUM_PREFIX, readTable } from "../tools/c_api.mjs";

type Table = ReturnType<typeof readTable>;
const table: Table = readTable();

test("the text reading of ffi/symbols.ts matches the imported table, function by function", () => {
  assert.deepEqual(table.functions.map((f) => f.name), Object.keys(symbols));
  for (const f of table.functions) {
    const def = symbols[f.name as keyof typeof symbols];
    assert.deepEqual(f.params.map((p) => p.ffi), def.parameters, `${f.name} parameters`);
    assert.equal(f.result.ffi, def.result, `${f.name} result`);
    assert.equal(f.since, def.since, `${f.name} since`);
    assert.equal(f.mayBlock, "mayBlock" in def && def.mayBlock === true, `${f.name} mayBlock`);
  }
  assert.equal(table.functions.length, 172);
});

test("the text reading of the callback signatures matches the imported table", () => {
  assert.deepEqual(table.callbacks.map((c) => c.key), Object.keys(callbacks));
  for (const c of table.callbacks) {
    const def = callbacks[c.key as keyof typeof callbacks];
    assert.deepEqual(c.params.map((p) => p.ffi), def.parameters, `${c.name} parameters`);
    assert.equal(c.result.ffi, def.result, `${c.name} result`);
  }
});

test("the text reading of ffi/enums.ts matches the imported enums", () => {
  const imported = Object.entries(enums).filter(([k, v]) =>
    k !== "API_VERSION" && typeof v === "object"
  );
  assert.deepEqual(table.enums.map((e) => e.key).sort(), imported.map(([k]) => k).sort());
  for (const e of table.enums) {
    const values = Object.fromEntries(e.members.map((m) => [m.key, m.value]));
    assert.deepEqual(values, enums[e.key as keyof typeof enums], e.key);
    assert.ok(e.key in ENUM_PREFIX, `${e.key} has a C prefix`);
  }
  assert.deepEqual(table.apiVersion, enums.API_VERSION);
});

test("the table keeps its mapping conventions", () => {
  assert.deepEqual(conventionErrors(table), []);
});

/** The table with one parameter's FFI type changed. */
function withParam(name: string, index: number, ffi: string): Table {
  return {
    ...table,
    functions: table.functions.map((f) =>
      f.name !== name
        ? f
        : { ...f, params: f.params.map((p, i) => (i === index ? { ...p, ffi } : p)) }
    ),
  };
}

test("the conventions reject a changed FFI type: enum as i32, u64 as u32, a handle as buf", () => {
  const cases: [string, number, string, RegExp][] = [
    ["TRITONSERVER_DataTypeString", 0, "i32", /\(datatype\): "i32" .* allow "u32"/],
    ["TRITONSERVER_InferenceTraceReportActivity", 1, "u32", /\(timestamp\): "u32" .* allow "u64"/],
    ["TRITONSERVER_ServerStop", 0, "buf", /\(server\): "buf" .* allow "ptr"/],
    ["TRITONSERVER_ServerModelIsReady", 3, "ptr", /\(ready\): "ptr" .* allow "buf"/],
    ["TRITONSERVER_ServerOptionsSetLogInfo", 1, "u32", /\(log\): "u32" .* allow "bool"/],
  ];
  for (const [name, index, ffi, message] of cases) {
    const errors = conventionErrors(withParam(name, index, ffi));
    assert.equal(errors.length, 1, `${name}: ${errors.join("; ")}`);
    assert.match(errors[0], new RegExp(`^${name} parameter ${index} ${message.source}`));
  }
});

test("the generated header declares every function with its C parameters", () => {
  const header = cHeader(table);
  assert.match(
    header,
    /^typedef TRITONSERVER_Error\* TRITONSERVER_ServerModelIsReady_fn\(TRITONSERVER_Server\* server, const char\* model_name, const int64_t model_version, bool\* ready\);$/m,
  );
  assert.match(header, /^ {2}TRITONSERVER_TYPE_BF16 = 14$/m);
  assert.match(
    header,
    /^typedef void \(\*TRITONSERVER_InferenceResponseCompleteFn_t\)\(TRITONSERVER_InferenceResponse\* response, const uint32_t flags, void\* userp\);$/m,
  );
  for (const f of table.functions) {
    assert.match(header, new RegExp(`^${f.name}_fn ${f.name};$`, "m"));
  }
});
