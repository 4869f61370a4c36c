// Runs ONNX models with onnxruntime-node for the OCR tests, in a process of its own (see
// tests/support/ort_reference.ts for why). Usage: node ort_run.mjs <dir>; <dir>/jobs.json lists
// { model, input, shape } with each input's FP32 data in <dir>/in<i>.f32; writes out<i>.f32 and
// dims.json (each output's dims). Plain Node ESM.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import ort from "onnxruntime-node";

const dir = process.argv[2];
const jobs = JSON.parse(readFileSync(join(dir, "jobs.json"), "utf8"));
const sessions = new Map();
const dims = [];
for (const [i, job] of jobs.entries()) {
  if (!sessions.has(job.model)) {
    sessions.set(job.model, await ort.InferenceSession.create(job.model));
  }
  const session = sessions.get(job.model);
  const bytes = readFileSync(join(dir, `in${i}.f32`));
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out = (await session.run({ [job.input]: new ort.Tensor("float32", data, job.shape) }))[
    session.outputNames[0]
  ];
  const result = out.data;
  writeFileSync(
    join(dir, `out${i}.f32`),
    new Uint8Array(result.buffer, result.byteOffset, result.byteLength),
  );
  dims.push(out.dims);
}
for (const session of sessions.values()) await session.release();
writeFileSync(join(dir, "dims.json"), JSON.stringify(dims));
