/**
 * Run by `tests/runner_commands.test.ts` with each runner's command from README (skipped
 * otherwise): the runner's configuration lets a test run past Bun's 5 s default and gives the
 * binding what it needs (Deno's permissions).
 */
import assert from "node:assert/strict";
import { test } from "./test.ts";
import { env } from "../../ffi/runtime.ts";
import { startServer } from "./env.ts";

const skip = env("TRITONFFI_RUNNER_CHECK") !== "1" &&
  "run by tests/runner_commands.test.ts with README's runner commands";

test("README's runner command: a 5.5 s test, then one inference", { skip }, async () => {
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 5_500)); // past Bun's 5 s default
  assert.ok(Date.now() - t0 >= 5_000);
  await using server = await startServer();
  using r = await server.model("identity_int32").inferOne({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([4, 5]) } },
  });
  assert.deepEqual(Array.from(r.output("OUTPUT0", "INT32").data), [4, 5]);
});
