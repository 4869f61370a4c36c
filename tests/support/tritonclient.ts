/**
 * Running Triton's Python clients (`tritonclient.http`, `tritonclient.grpc`) from the tests that
 * drive the front ends with them: `$TRITONCLIENT_PYTHON` picks the interpreter (default
 * `python3`), `$TRITONCLIENT_PYTHONPATH` puts a copy of the client on its path.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { env } from "../../ffi/runtime.ts";

const python = env("TRITONCLIENT_PYTHON") ?? "python3";
const pythonPath = env("TRITONCLIENT_PYTHONPATH");
const childEnv = {
  ...(globalThis as { process?: { env: Record<string, string> } }).process?.env,
  ...(pythonPath ? { PYTHONPATH: pythonPath } : {}),
};

/** The path of a script in tests/support. */
export function supportScript(name: string): string {
  return decodeURIComponent(new URL(`./${name}`, import.meta.url).pathname);
}

/** Runs python with `args`; resolves with its exit code and output (never blocks the event loop,
 * which serves the requests the script makes). */
export function runPython(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(python, args, { env: childEnv });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ code: null, output: String(e) }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** `false` where `module` imports, else why the test is skipped. */
export async function skipUnlessImportable(module: string): Promise<string | false> {
  const probe = await runPython(["-c", `import ${module}`]);
  return probe.code === 0
    ? false
    : `${module} is not importable with ${python}${
      pythonPath ? ` and PYTHONPATH=${pythonPath}` : ""
    } (see this file's header)`;
}
