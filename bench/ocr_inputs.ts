/**
 * Writes the OCR benchmark's image and detector input for bench/ocr_python_api.py, the same ones
 * bench/ocr.ts makes: `<dir>/image.u8` (UINT8 [H, W, 3]), `det.f32` (FP32 [1, 3, H', W']) and
 * `shapes.json` (their shapes and the lines drawn). Usage: `node bench/ocr_inputs.ts <dir>`.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { detectorInput } from "../examples/ocr/detect.ts";
import { textImage } from "../tests/support/text_image.ts";
import { OCR_IMAGE, OCR_LINES } from "./ocr_image.ts";

const dir = process.argv[2];
mkdirSync(dir, { recursive: true });
const { image } = textImage(OCR_LINES, OCR_IMAGE);
const input = detectorInput(image);
writeFileSync(join(dir, "image.u8"), image.data);
writeFileSync(
  join(dir, "det.f32"),
  new Uint8Array(input.data.buffer, input.data.byteOffset, input.data.byteLength),
);
writeFileSync(
  join(dir, "shapes.json"),
  JSON.stringify({ image: [image.height, image.width, 3], det: input.shape, lines: OCR_LINES }),
);
