/**
 * `serve()` driven by Triton's own Python client (`tritonclient.http`): metadata, every data type
 * in binary and JSON, errors and statistics, as the client sees them against tritonserver.
 *
 * Needs a Python with `tritonclient.http` importable (`pip install tritonclient[all]`, or a copy
 * of it on `$TRITONCLIENT_PYTHONPATH`) and numpy; `$TRITONCLIENT_PYTHON` picks the interpreter
 * (default `python3`). Skipped, with the reason, where there is none.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import { type Serving, settled, startServing, stopServing } from "./support/serve.ts";

const script = supportScript("tritonclient_check.py");
const skip = await skipUnlessImportable("tritonclient.http");

let s: Serving | undefined;
before(async () => {
  if (!skip) s = await startServing();
});
after(async () => {
  await stopServing(s);
});

test("Triton's Python HTTP client gets tritonserver's answers", { skip }, async () => {
  const { code, output } = await runPython([script, `127.0.0.1:${s!.http.port}`]);
  assert.equal(code, 0, output);
  assert.match(output, /tritonclient: all \d+ checks passed/);
  console.log(output.trim());
  await settled(s!);
});
