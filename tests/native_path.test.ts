/**
 * The native path a server runs is readable at run time (`Server.info()`): on x86-64 and aarch64
 * Linux the native one (generated x86-64 or A64 code on Deno and Node, C compiled by `cc()` on
 * Bun), and with `TRITONFFI_CALLBACKS=js` the JS callbacks with that as the reason. Generated code
 * reaches executable memory through `placeCode`, which runs the instruction set's cache flush (on
 * aarch64 the generated one, run here under `npm run test:aarch64`).
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { startServer } from "./support/env.ts";
import { loadTriton } from "../ffi/mod.ts";
import { coherentCaches, os, PAGE_SIZE, placeCode, platform } from "../ffi/os.ts";
import { routinesFor } from "../ffi/native/platform.ts";
import { env, runtimeName } from "../ffi/runtime.ts";

test("server.info() says which native path runs, and why it fell back", async () => {
  await using server = await startServer();
  const info = server.info();
  const { arch, linux } = platform();
  assert.equal(info.runtime, runtimeName());
  assert.equal(info.arch, arch);
  if (env("TRITONFFI_CALLBACKS") === "js") {
    assert.deepEqual(
      { ...info },
      {
        runtime: runtimeName(),
        arch,
        callbacks: "js",
        nativePath: "none",
        fallbackReason: "TRITONFFI_CALLBACKS=js",
      },
    );
  } else if (linux && (arch === "x86_64" || arch === "aarch64")) {
    assert.deepEqual({ ...info }, {
      runtime: runtimeName(),
      arch,
      callbacks: "native",
      nativePath: runtimeName() === "bun" ? "bun-cc" : arch === "x86_64" ? "x86_64" : "a64",
    });
  } else {
    // Elsewhere: whichever path runs, the two fields agree and a fallback says why.
    assert.equal(info.nativePath === "none", info.callbacks === "js");
    assert.equal(info.fallbackReason === undefined, info.callbacks === "native");
  }
});

test("server.info() of a server not running is UNAVAILABLE", async () => {
  const { Server } = await import("../mod.ts");
  const server = new Server({ modelRepository: "/nonexistent" });
  assert.throws(() => server.info(), {
    name: "TritonError",
    code: "UNAVAILABLE",
    message: /not started/,
  });
});

test("placeCode places the code, then runs the instruction set's cache flush over it", async () => {
  const { ffi } = await loadTriton();
  const flushed: [number, number][] = [];
  const code = Uint8Array.of(0xc3, 0x90, 0x90);
  const p = placeCode(ffi, PAGE_SIZE, () => code, (f, at, length) => {
    assert.equal(f, ffi);
    assert.deepEqual([...new Uint8Array(ffi.view(at, length))], [...code]);
    flushed.push([ffi.address(at), length]);
  });
  assert.deepEqual(flushed, [[ffi.address(p), 3]]);
  const routines = routinesFor("x86_64");
  assert.ok(typeof routines !== "string");
  assert.equal(routines.flush, coherentCaches, "x86-64 needs no flush");
  assert.equal(routines.atomics, undefined, "x86-64's C makes its own atomics");
  const a64 = routinesFor("aarch64");
  assert.ok(typeof a64 !== "string", "aarch64 has generated routines");
  assert.equal(a64.arch, "aarch64");
  assert.notEqual(a64.flush, coherentCaches, "aarch64 flushes placed code");
  assert.equal(typeof a64.atomics, "function", "Bun's C on aarch64 takes generated atomics");
  assert.match(String(routinesFor("riscv64")), /no native routines for riscv64/);
});

test("on aarch64, code placed with the A64 flush runs", {
  skip: platform().arch !== "aarch64" && `the CPU is ${platform().arch}`,
}, async () => {
  const { ffi } = await loadTriton();
  const a64 = routinesFor("aarch64");
  assert.ok(typeof a64 !== "string");
  // int compare(const void*, const void*) { return 0; }: bsearch then returns its one element
  const words = [0xd503245f, 0x52800000, 0xd65f03c0]; // bti c; mov w0, #0; ret
  const code = new Uint8Array(Uint32Array.from(words).buffer);
  const p = placeCode(ffi, PAGE_SIZE, () => code, a64.flush);
  const key = new Uint8Array(1);
  const element = new Uint8Array(1);
  const found = os(ffi).sync.bsearch(ffi.addressOf(key), ffi.addressOf(element), 1n, 1n, p);
  assert.equal(ffi.address(found), ffi.address(ffi.addressOf(element)));
  // the flush over a range that is not code (this test's bytes) returns too
  a64.flush(ffi, ffi.addressOf(element), 1);
});
