/**
 * Test images with known text, rendered by pureimage (pure JS) in DejaVu Sans (npm's
 * `dejavu-fonts-ttf`): black lines of text on white, as the OCR tests read them back.
 *
 * @module
 */
import { createRequire } from "node:module";
import * as PImage from "pureimage";
import type { RgbImage } from "../../examples/ocr/image.ts";

const require = createRequire(import.meta.url);
const FONT = require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf");
let font: ReturnType<typeof PImage.registerFont> | undefined;

/** Where each line was drawn: its baseline's left end, in pixels. */
export interface DrawnLine {
  text: string;
  x: number;
  y: number;
}

/**
 * Draws `lines` (one string each) at `fontSize` pixels, one line every `fontSize * 2` pixels,
 * starting `fontSize` from the left and top, on a white `width × height` image.
 */
export function textImage(
  lines: readonly string[],
  { width = 640, height = 96 * lines.length, fontSize = 40 } = {},
): { image: RgbImage; drawn: DrawnLine[] } {
  font ??= PImage.registerFont(FONT, "DejaVu Sans");
  font.loadSync();
  const bitmap = PImage.make(width, height);
  const ctx = bitmap.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = "#000000";
  ctx.font = `${fontSize}pt 'DejaVu Sans'`;
  const drawn = lines.map((text, i) => {
    const x = fontSize, y = fontSize * 2 * i + fontSize * 1.6;
    ctx.fillText(text, x, y);
    return { text, x, y };
  });
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) rgb[p * 3 + c] = bitmap.data[p * 4 + c];
  }
  return { image: { width, height, data: rgb }, drawn };
}
