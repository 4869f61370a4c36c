/**
 * The OCR pipeline as one Triton model: streams `ocr_pipeline`'s lines (a decoupled Python model
 * that runs the detector and the recognizer through BLS) as they come.
 *
 * @module
 */
import type { Server } from "../../mod.ts";
import type { RgbImage } from "./image.ts";
import type { TextLine } from "./read_text.ts";
import { PIPELINE } from "./repository.ts";

/**
 * Sends `image` to `ocr_pipeline` (UINT8 `IMAGE` `[height, width, 3]`) and yields one line per
 * response, in reading order. Leaving the loop early or aborting `signal` cancels the request in
 * Triton.
 *
 * @throws {TritonError} what the model answers (`CANCELLED` once aborted).
 */
export async function* streamText(
  server: Server,
  image: RgbImage,
  signal?: AbortSignal,
): AsyncGenerator<TextLine> {
  const stream = server.model(PIPELINE.model).infer({
    inputs: { IMAGE: { dtype: "UINT8", shape: [image.height, image.width, 3], data: image.data } },
    signal,
  });
  for await (const response of stream) {
    if (!("TEXT" in response.outputs)) continue; // the final flag alone
    const [x0, y0, x1, y1] = response.output("BOX", "INT32").data;
    const [score, textScore] = response.output("SCORE", "FP32").data;
    const text = response.output("TEXT", "BYTES").strings()[0];
    response.dispose();
    yield { x0, y0, x1, y1, score, text, textScore };
  }
}
