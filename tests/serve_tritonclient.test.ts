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
import { spawn } from "node:child_process";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { env } from "../ffi/runtime.ts";
import { type Serving, settled, startServing, stopServing } from "./support/serve.ts";

const script = decodeURIComponent(
  new URL("./support/tritonclient_check.py", import.meta.url).pathname,
);
const python = env("TRITONCLIENT_PYTHON") ?? "python3";
const pythonPath = env("TRITONCLIENT_PYTHONPATH");
const childEnv = {
  ...(globalThis as { process?: { env: Record<string, string> } }).process?.env,
  ...(pythonPath ? { PYTHONPATH: pythonPath } : {}),
};

/** Runs python with `args`; resolves with its exit code and output (never blocks the event loop,
 * which serves the requests the script makes). */
function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(python, args, { env: childEnv });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ code: null, output: String(e) }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

const probe = await run(["-c", "import tritonclient.http"]);
const skip = probe.code === 0
  ? false
  : `tritonclient.http is not importable with ${python}${
    pythonPath ? ` and PYTHONPATH=${pythonPath}` : ""
  } (see this file's header)`;

let s: Serving | undefined;
before(async () => {
  if (!skip) s = await startServing();
});
after(async () => {
  await stopServing(s);
});

test("Triton's Python HTTP client gets tritonserver's answers", { skip }, async () => {
  const { code, output } = await run([script, `127.0.0.1:${s!.http.port}`]);
  assert.equal(code, 0, output);
  assert.match(output, /tritonclient: all \d+ checks passed/);
  console.log(output.trim());
  await settled(s!);
});
