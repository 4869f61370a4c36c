/**
 * Images for the OCR example: decoding PNG and JPEG files to RGB pixels, cropping, and bilinear
 * resizing. Pixels are 8-bit RGB, row-major, `height × width × 3` (the layout the `ocr_pipeline`
 * model takes as its `IMAGE` input).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { PNG } from "pngjs";
import jpeg from "jpeg-js";

/** An 8-bit RGB image: `data` holds `height × width × 3` bytes, row by row. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A box in pixels: `x0`, `y0` inclusive, `x1`, `y1` exclusive. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Decodes a PNG or JPEG file's bytes (told apart by their signature) into RGB; alpha is blended
 * over white.
 *
 * @throws {Error} when the bytes are neither PNG nor JPEG, or the decoder rejects them.
 */
export function decodeImage(bytes: Uint8Array): RgbImage {
  const png = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const jpg = bytes[0] === 0xff && bytes[1] === 0xd8;
  if (!png && !jpg) throw new Error("not a PNG or JPEG image");
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { width, height, data } = png
    ? PNG.sync.read(buffer)
    : jpeg.decode(buffer, { useTArray: true, formatAsRGBA: true });
  return { width, height, data: rgbaToRgb(data, width * height) };
}

function rgbaToRgb(rgba: Uint8Array, pixels: number): Uint8Array {
  const rgb = new Uint8Array(pixels * 3);
  for (let p = 0; p < pixels; p++) {
    const a = rgba[p * 4 + 3];
    for (let c = 0; c < 3; c++) {
      rgb[p * 3 + c] = Math.round((rgba[p * 4 + c] * a + 255 * (255 - a)) / 255);
    }
  }
  return rgb;
}

/** The part of `image` inside `box` (clipped to the image). */
export function crop(image: RgbImage, box: Box): RgbImage {
  const x0 = Math.max(0, box.x0), y0 = Math.max(0, box.y0);
  const width = Math.max(0, Math.min(image.width, box.x1) - x0);
  const height = Math.max(0, Math.min(image.height, box.y1) - y0);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((y0 + y) * image.width + x0) * 3;
    data.set(image.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { width, height, data };
}

/**
 * Bilinear resize to `width × height`, sampling pixel centres (OpenCV's `INTER_LINEAR` without
 * its fixed-point rounding); the result's values are floats in 0..255, `height × width × 3`.
 */
export function resize(image: RgbImage, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height * 3);
  const sx = image.width / width, sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), image.height - 1);
    const y0 = Math.floor(fy), y1 = Math.min(y0 + 1, image.height - 1), wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), image.width - 1);
      const x0 = Math.floor(fx), x1 = Math.min(x0 + 1, image.width - 1), wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const a = image.data[(y0 * image.width + x0) * 3 + c];
        const b = image.data[(y0 * image.width + x1) * 3 + c];
        const d = image.data[(y1 * image.width + x0) * 3 + c];
        const e = image.data[(y1 * image.width + x1) * 3 + c];
        const top = a + (b - a) * wx, bottom = d + (e - d) * wx;
        out[(y * width + x) * 3 + c] = top + (bottom - top) * wy;
      }
    }
  }
  return out;
}
