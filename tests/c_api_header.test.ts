/**
 * ffi/symbols.ts and ffi/enums.ts against a real `tritonserver.h`: every function the header
 * declares is in the table and every function of the table (up to the header's API version) in
 * the header, with the same parameter count, the same C types as the table's comments, and FFI
 * types the table's mapping conventions allow for the header's C types (an enum is "u32", an
 * out-parameter "buf" ...); the same for the callback typedefs and the enum values.
 *
 * Runs where `TRITONSERVER_INCLUDE` names a directory holding `tritonserver.h` (directly or as
 * `triton/core/tritonserver.h`); skipped otherwise. Nothing of the header is kept.
 *
 * `TRITONSERVER_INCLUDE=/path/to/include deno test -A tests/c_api_header.test.ts`
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "./support/test.ts";
import * as enums from "../ffi/enums.ts";
import { callbacks, symbols } from "../ffi/symbols.ts";
import { allowedFfiTypes, ENUM_PREFIX, readTable } from "../tools/c_api.mjs";
import { type HeaderFunction, parseHeader } from "./support/triton_header.ts";

function findHeader(): string | undefined {
  const dir = process.env.TRITONSERVER_INCLUDE;
  if (!dir) return undefined;
  return [join(dir, "tritonserver.h"), join(dir, "triton", "core", "tritonserver.h")].find((p) =>
    existsSync(p)
  );
}

const path = findHeader();
const skip = path
  ? false
  : process.env.TRITONSERVER_INCLUDE
  ? `no tritonserver.h in TRITONSERVER_INCLUDE=${process.env.TRITONSERVER_INCLUDE}`
  : "TRITONSERVER_INCLUDE is not set (a directory holding a real tritonserver.h)";
const header = path ? parseHeader(readFileSync(path, "utf8")) : undefined;
const table = readTable();
const names = {
  enums: new Set(header?.enums.map((e) => e.name)),
  callbacks: new Set(header?.callbacks.map((c) => c.name)),
};

/** The differences of one function (or callback) between the header and the table. */
function differences(
  h: HeaderFunction,
  ffi: { parameters: readonly string[]; result: string },
  c: { params: readonly { type: string }[]; result: { type: string } },
  role: "param" | "callback",
): string[] {
  const out: string[] = [];
  if (h.params.length !== ffi.parameters.length || h.params.length !== c.params.length) {
    return [`${h.name}: ${h.params.length} parameters, the table has ${ffi.parameters.length}`];
  }
  h.params.forEach((p, i) => {
    const where = `${h.name} parameter ${i} (${p.name})`;
    if (c.params[i].type !== p.type) {
      out.push(`${where}: C type "${p.type}", the table's comment says "${c.params[i].type}"`);
    }
    const allowed = allowedFfiTypes(p.type, role, names);
    if (!allowed.includes(ffi.parameters[i])) {
      out.push(`${where}: "${ffi.parameters[i]}" for "${p.type}" (conventions: ${allowed})`);
    }
  });
  if (c.result.type !== h.result) {
    out.push(`${h.name} result: C type "${h.result}", the table's comment says "${c.result.type}"`);
  }
  const allowed = allowedFfiTypes(h.result, "result", names);
  if (!allowed.includes(ffi.result)) {
    out.push(`${h.name} result: "${ffi.result}" for "${h.result}" (conventions: ${allowed})`);
  }
  return out;
}

test("every function of tritonserver.h is in ffi/symbols.ts, and the reverse", { skip }, () => {
  const h = header!;
  assert.deepEqual(h.apiVersion, enums.API_VERSION, "the header's API version");
  const declared = new Set(h.functions.map((f) => f.name));
  const missing = [...declared].filter((n) => !(n in symbols));
  const extra = Object.entries(symbols)
    .filter(([n, d]) => d.since <= h.apiVersion.minor && !declared.has(n))
    .map(([n]) => n);
  assert.deepEqual(missing, [], "declared by the header, not in the table");
  assert.deepEqual(extra, [], "in the table, not declared by the header");
  assert.equal(h.functions.length, 172);
});

test(
  "each function: parameter count, C types and FFI types agree with the header",
  { skip },
  () => {
    const byName = new Map(table.functions.map((f) => [f.name, f]));
    const problems = header!.functions.flatMap((h) => {
      const def = symbols[h.name as keyof typeof symbols];
      return def ? differences(h, def, byName.get(h.name)!, "param") : [];
    });
    assert.deepEqual(problems, []);
  },
);

test("each callback typedef agrees with the table's callback signatures", { skip }, () => {
  const h = header!;
  const byName = new Map(table.callbacks.map((c) => [c.name, c]));
  assert.deepEqual(
    h.callbacks.map((c) => c.name).sort(),
    [...byName.keys()].sort(),
    "callback typedefs",
  );
  const problems = h.callbacks.flatMap((c) => {
    const t = byName.get(c.name)!;
    return differences(c, callbacks[t.key as keyof typeof callbacks], t, "callback");
  });
  assert.deepEqual(problems, []);
});

test("each enum of the header has the values of ffi/enums.ts", { skip }, () => {
  const h = header!;
  assert.deepEqual(
    h.enums.map((e) => e.name).sort(),
    table.enums.map((e) => e.name).sort(),
    "enum typedefs",
  );
  for (const e of h.enums) {
    const t = table.enums.find((x) => x.name === e.name)!;
    const prefix = ENUM_PREFIX[t.key as keyof typeof ENUM_PREFIX];
    const expected = Object.entries(enums[t.key as keyof typeof enums]).map((
      [k, v],
    ) => [prefix + k, v]);
    assert.deepEqual([...e.members], expected, e.name);
  }
});
