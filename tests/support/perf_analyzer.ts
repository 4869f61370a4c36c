/**
 * Running Triton's `perf_analyzer` (`$PERF_ANALYZER`) from the tests that drive the front ends
 * with it.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { env } from "../../ffi/runtime.ts";

/** The perf_analyzer binary, where `$PERF_ANALYZER` names one. */
export const perfAnalyzer: string | undefined = env("PERF_ANALYZER");

/** `false` where perf_analyzer is there, else why a test that needs it is skipped. */
export const skipPerf: string | false = perfAnalyzer
  ? false
  : "PERF_ANALYZER is not set (Triton's perf_analyzer)";

/** Runs perf_analyzer with `args`; resolves with its exit code and output. */
export function runPerfAnalyzer(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(perfAnalyzer!, args);
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ code: null, output: String(e) }));
    child.on("close", (code) => resolve({ code, output }));
  });
}
