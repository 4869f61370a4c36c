/**
 * The binding's C sources (ffi/native/c): the allocator compiled by Bun's `cc()` decides as
 * `place()` over the whole placement domain, and the C reference client builds (warnings as errors)
 * against the C API generated from ffi/symbols.ts and the same C sources, then runs.
 *
 * `deno test -A tests/native_code.test.ts`, `bun test tests/native_code.test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";
import { test } from "./support/test.ts";
import { fileURLToPath } from "node:url";
import {
  allocatorCSymbols,
  allocatorDefines,
  allocatorSource,
  encodePolicy,
  place,
  PolicyKind,
} from "../ffi/allocator.ts";
import { MemoryType } from "../ffi/enums.ts";
import { ffiRuntime, runtimeName } from "../ffi/runtime.ts";
import { buildNativeClient } from "../bench/native/build.mjs";

test("the C allocator places every output as place() does", {
  skip: runtimeName() === "bun" ? false : "only Bun compiles C at run time",
}, async () => {
  const ffi = await ffiRuntime();
  const c = ffi.compile!(allocatorSource(), allocatorDefines(), allocatorCSymbols);
  const type = new Uint32Array(1);
  const id = new BigInt64Array(1);
  const fake = ffi.fromAddress(0x1000); // never called by query: it only marks CUDA as loaded
  let checked = 0;
  for (const cuda of [false, true]) {
    if (cuda) c.call.tritonffi_use_cuda(fake, fake, fake, fake, fake);
    for (const kind of Object.values(PolicyKind)) {
      for (const fallback of [false, true]) {
        for (const requested of Object.values(MemoryType)) {
          const policy = encodePolicy(kind, 5, fallback);
          type[0] = requested;
          id[0] = 7n;
          const err = c.call.tritonffi_query(
            ffi.NULL,
            ffi.fromAddress(policy),
            ffi.NULL,
            ffi.NULL,
            ffi.addressOf(type),
            ffi.addressOf(id),
          );
          assert.ok(ffi.isNull(err));
          const expected = place({ kind, deviceId: 5, fallback }, requested, 7, cuda);
          const where = `kind ${kind} fallback ${fallback} requested ${requested} cuda ${cuda}`;
          assert.deepEqual([type[0], Number(id[0])], [expected.type, expected.id], where);
          checked++;
        }
      }
    }
  }
  assert.equal(checked, 2 * 4 * 2 * 3);
});

const fakeCore = fileURLToPath(new URL("../.build/fake_core/libtritonserver.so", import.meta.url));
const cc = spawnSync(process.env.CC ?? "cc", ["--version"]).status === 0;

test("the C reference client builds against the generated C API and ffi/native/c, and runs", {
  skip: cc ? false : "no C compiler",
}, () => {
  const client = buildNativeClient();
  const lib = process.env.TRITONSERVER_LIB ?? (existsSync(fakeCore) ? fakeCore : undefined);
  const backends = process.env.TRITONSERVER_BACKEND_DIR ??
    (lib === fakeCore ? fileURLToPath(new URL("../.build/fake_core", import.meta.url)) : undefined);
  if (!lib || !backends) return; // built; no core to run it against
  const models = fileURLToPath(new URL("./models", import.meta.url));
  const r = spawnSync(client, [lib, models, backends, "10", "handoff,direct"], {
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  for (const mode of ["handoff", "direct"]) {
    assert.ok(out[mode].stream_1x100000 > 0, `${mode}: streamed`);
    assert.ok(out[mode].latency_1x16.count > 0, `${mode}: completed requests`);
  }
});
