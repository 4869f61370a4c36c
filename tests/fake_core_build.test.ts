/**
 * tests/fake_core/build.mjs where it cannot compile: without a C compiler it says so in words a
 * new user can act on (which compiler, how to install or name one, or how to use a real core),
 * and exits 1 without a stack.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { test } from "./support/test.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

test("no C compiler: one line naming it, how to get one, and TRITONSERVER_LIB", {
  skip: ("Deno" in globalThis || "Bun" in globalThis) &&
    "a build script run with the pinned node: the Node run checks it",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-nocc-"));
  try {
    const r = spawnSync(process.execPath, [join(ROOT, "tests/fake_core/build.mjs")], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CC: "no-such-cc-here", TEST_BUILD_DIR: dir },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(
      r.stderr,
      "fake core: no C compiler: `no-such-cc-here` is not on PATH. The fake core is C: install " +
        "one (Debian: apt-get install gcc) or name it with CC=…; or run on a real core with " +
        "TRITONSERVER_LIB=/path/to/libtritonserver.so\n",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
