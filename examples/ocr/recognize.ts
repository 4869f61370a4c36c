/**
 * The text recognizer's side of the OCR example (PaddleOCR v4's CRNN recognizer with CTC): the
 * input tensor made from a text box, and the text read from the per-step class probabilities it
 * returns. The same steps, in numpy, are in `ocr_pipeline/model.py`; the two must stay in step.
 *
 * @module
 */
import { type Box, crop, resize, type RgbImage } from "./image.ts";

/** The recognizer's input height, in pixels. */
export const RECOGNIZE_HEIGHT = 48;
/**
 * The recognizer's input width, in pixels: every crop is padded to it, so that requests share one
 * shape and Triton's dynamic batcher can put them in one batch.
 */
export const RECOGNIZE_WIDTH = 320;

/**
 * The recognizer's input for the part of `image` inside `box`: FP32 `[3, 48, 320]` (BGR planes,
 * `v / 127.5 - 1`), the crop scaled to height 48 with its aspect kept (at most 320 wide) and padded
 * with zeros on the right. Batch it as `[N, 3, 48, 320]`.
 */
export function recognizerInput(image: RgbImage, box: Box): Float32Array {
  const part = crop(image, box);
  const width = Math.max(
    1,
    Math.min(RECOGNIZE_WIDTH, Math.ceil((RECOGNIZE_HEIGHT * part.width) / part.height)),
  );
  const pixels = resize(part, width, RECOGNIZE_HEIGHT);
  const plane = RECOGNIZE_WIDTH * RECOGNIZE_HEIGHT;
  const data = new Float32Array(3 * plane);
  for (let y = 0; y < RECOGNIZE_HEIGHT; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        data[c * plane + y * RECOGNIZE_WIDTH + x] = pixels[(y * width + x) * 3 + 2 - c] / 127.5 - 1;
      }
    }
  }
  return data;
}

/**
 * The recognizer's classes from its dictionary file (one character a line): CTC's blank first,
 * then the file's characters, then a space.
 */
export function charset(dictionary: string): string[] {
  const lines = dictionary.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return ["", ...lines, " "];
}

/** A line of text read by the recognizer, with the mean probability of its characters. */
export interface Text {
  text: string;
  score: number;
}

/**
 * Greedy CTC decoding of one crop's output, `steps × classes` FP32 probabilities: the most likely
 * class of each step, repeats merged and blanks dropped.
 *
 * @throws {Error} when `classes` is not the charset's length (a dictionary for another model).
 */
export function ctcDecode(
  probs: Float32Array,
  steps: number,
  classes: number,
  chars: string[],
): Text {
  if (classes !== chars.length) {
    throw new Error(`the recognizer has ${classes} classes, the dictionary ${chars.length}`);
  }
  let text = "", sum = 0, count = 0, previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0, p = probs[t * classes];
    for (let k = 1; k < classes; k++) {
      if (probs[t * classes + k] > p) best = k, p = probs[t * classes + k];
    }
    if (best !== 0 && best !== previous) text += chars[best], sum += p, count++;
    previous = best;
  }
  return { text, score: count ? sum / count : 0 };
}
