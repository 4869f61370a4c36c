/**
 * `npm run demo` (examples/run_demo.mjs) says which core it runs on: the project's fake core is
 * called that, never "the real core", whichever way it was found (examples/core_kind.mjs reads
 * the library's dynamic symbols).
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
import { isFakeCore } from "./support/env.ts";
import { env } from "../ffi/runtime.ts";
import { coreKind } from "../examples/core_kind.mjs";
import { toolchainBin } from "./runtime_command.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

test("coreKind: the core the suite runs on, and what is no core", async () => {
  const lib = env("TRITONSERVER_LIB")!;
  assert.equal(coreKind(lib), (await isFakeCore()) ? "fake" : "real", lib);
  assert.equal(coreKind(fileURLToPath(import.meta.url)), undefined, "not an ELF file");
  assert.equal(coreKind("/nonexistent/libtritonserver.so"), undefined);
  const cudart = env("TRITONFFI_CUDART");
  if (cudart) assert.equal(coreKind(cudart), undefined, "a library, not Triton's");
});

test("coreKind: a library defining Triton's functions but not the fake core's is real", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-core-kind-"));
  try {
    const out = join(dir, "libtritonserver.so");
    const cc = spawnSync(process.env.CC ?? "cc", ["-shared", "-fPIC", "-x", "c", "-", "-o", out], {
      input: "void* TRITONSERVER_ServerNew(void) { return 0; }\n",
      encoding: "utf8",
    });
    if (cc.error || cc.status !== 0) {
      t.skip(`no C compiler to build a stand-in library (${cc.error?.message ?? cc.stderr})`);
      return;
    }
    assert.equal(coreKind(out), "real");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("npm run demo on TRITONSERVER_LIB says which core it uses", async () => {
  const lib = env("TRITONSERVER_LIB")!;
  const r = spawnSync(toolchainBin(ROOT, "node"), [join(ROOT, "examples/run_demo.mjs")], {
    env: { ...process.env, DEMO_RUNTIME: "node" },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const first = r.stdout.split("\n")[0];
  const kind = (await isFakeCore()) ? "the project's fake core" : "the real core";
  assert.equal(first, `Using ${kind} from TRITONSERVER_LIB: ${lib}`);
  assert.match(r.stdout, /^done$/m);
});
