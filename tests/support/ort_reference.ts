/**
 * onnxruntime-node's answers for the OCR tests, from a child process running the pinned Node
 * (tests/support/ort_run.mjs). Not in the test's own process: under `deno test`, onnxruntime-node
 * destroys its ONNX Runtime environment when the first test module that loaded it ends, and a
 * later module's session then fails ("OrtEnv already destroyed") or crashes in the addon's
 * LoadModel.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolchainBin } from "../runtime_command.mjs";

/** One model run: the ONNX file, its input's name, and the FP32 input. */
export interface OrtJob {
  model: string;
  input: string;
  data: Float32Array;
  shape: readonly number[];
}

const root = decodeURIComponent(new URL("../..", import.meta.url).pathname);

/** Each job's first output (FP32) and its dims, in order. */
export async function ortRun(
  jobs: readonly OrtJob[],
): Promise<{ data: Float32Array; dims: number[] }[]> {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-ort-"));
  try {
    writeFileSync(
      join(dir, "jobs.json"),
      JSON.stringify(jobs.map(({ model, input, shape }) => ({ model, input, shape }))),
    );
    jobs.forEach((j, i) =>
      writeFileSync(
        join(dir, `in${i}.f32`),
        new Uint8Array(j.data.buffer, j.data.byteOffset, j.data.byteLength),
      )
    );
    await new Promise<void>((resolve, reject) =>
      execFile(
        toolchainBin(root, "node"),
        [join(root, "tests/support/ort_run.mjs"), dir],
        { cwd: root },
        (
          error,
          _stdout,
          stderr,
        ) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
      )
    );
    const dims: number[][] = JSON.parse(readFileSync(join(dir, "dims.json"), "utf8"));
    return dims.map((d, i) => {
      const b = readFileSync(join(dir, `out${i}.f32`));
      return { data: new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4), dims: d };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
