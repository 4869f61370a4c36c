/**
 * The native path a server runs is readable at run time (`Server.info()`): on x86-64 Linux the
 * native one (generated x86-64 code on Deno and Node, C compiled by `cc()` on Bun), and with
 * `TRITONFFI_CALLBACKS=js` the JS callbacks with that as the reason.
 */
import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { startServer } from "./support/env.ts";
import { platform } from "../ffi/os.ts";
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
