/**
 * The native path a server runs is readable at run time (`Server.info()`): on x86-64 Linux the
 * native one (generated x86-64 code on Deno and Node, C compiled by `cc()` on Bun), and with
 * `TRITONFFI_CALLBACKS=js` the JS callbacks with that as the reason. Generated code reaches
 * executable memory through `placeCode`, which runs the instruction set's cache flush.
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { startServer } from "./support/env.ts";
import { loadTriton } from "../ffi/mod.ts";
import { coherentCaches, PAGE_SIZE, placeCode, platform } from "../ffi/os.ts";
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
  } else if (linux && arch === "x86_64") {
    assert.deepEqual({ ...info }, {
      runtime: runtimeName(),
      arch,
      callbacks: "native",
      nativePath: runtimeName() === "bun" ? "bun-cc" : "x86_64",
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
  assert.equal(routinesFor("aarch64"), "no A64 routines yet");
});
