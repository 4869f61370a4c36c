/**
 * The OCR example's pipeline in the application: the detector, then the recognizer on every text
 * box at once, each a request to the in-process server (Triton's dynamic batcher batches the
 * recognizer's requests). `ocr_pipeline` (a Python model) does the same inside Triton.
 *
 * @module
 */
import type { Server } from "../../mod.ts";
import { detectorInput, findBoxes, type TextBox } from "./detect.ts";
import type { RgbImage } from "./image.ts";
import { ctcDecode, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH, recognizerInput } from "./recognize.ts";
import { DETECTOR, RECOGNIZER } from "./repository.ts";

/** A line of text, its box in the image's pixels, and the detector's and recognizer's scores. */
export interface TextLine extends TextBox {
  text: string;
  textScore: number;
}

/**
 * Reads the text of `image`, in reading order: one `ocr_det` request, then one `ocr_rec` request
 * per box, all in flight together.
 *
 * @param chars the recognizer's classes (`charset()` of its dictionary).
 * @throws {TritonError} what the server answers (`NOT_FOUND` when the models are not loaded).
 */
export async function readText(
  server: Server,
  image: RgbImage,
  chars: string[],
  signal?: AbortSignal,
): Promise<TextLine[]> {
  const input = detectorInput(image);
  const [, , height, width] = input.shape;
  using detected = await server.model(DETECTOR.model).inferOne({
    inputs: { [DETECTOR.input]: { dtype: "FP32", shape: input.shape, data: input.data } },
    signal,
  });
  const map = detected.output(DETECTOR.output, "FP32").data;
  const boxes = findBoxes(map, width, height, image.width, image.height)
    .filter((b) => b.x1 > b.x0 && b.y1 > b.y0);
  return await Promise.all(boxes.map(async (box) => {
    using read = await server.model(RECOGNIZER.model).inferOne({
      inputs: {
        [RECOGNIZER.input]: {
          dtype: "FP32",
          shape: [1, 3, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH],
          data: recognizerInput(image, box),
        },
      },
      signal,
    });
    const probs = read.output(RECOGNIZER.output, "FP32");
    const [, steps, classes] = probs.shape;
    const { text, score } = ctcDecode(probs.data, steps, classes, chars);
    return { ...box, text, textScore: score };
  }));
}
