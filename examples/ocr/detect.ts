/**
 * The text detector's side of the OCR example (PaddleOCR v4's DB detector): the input tensor made
 * from an image, and the text boxes read from the probability map it returns. The same steps, in
 * numpy, are in `ocr_pipeline/model.py`; the two must stay in step.
 *
 * @module
 */
import { type Box, resize, type RgbImage } from "./image.ts";

/** The detector's input: `data` is FP32 `[1, 3, height, width]` (BGR planes, normalized). */
export interface DetectorInput {
  data: Float32Array;
  shape: [1, 3, number, number];
}

/** Longest side the detector sees, in pixels (larger images are scaled down). */
export const DETECT_MAX_SIDE = 960;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/**
 * Scales `image` so that its longer side is at most {@link DETECT_MAX_SIDE} and both sides are
 * multiples of 32 (at least 32), then normalizes it as PaddleOCR does: BGR channel order,
 * `(v / 255 - mean) / std` with ImageNet's mean and standard deviation.
 */
export function detectorInput(image: RgbImage): DetectorInput {
  const ratio = Math.min(1, DETECT_MAX_SIDE / Math.max(image.width, image.height));
  const height = Math.max(32, Math.round((image.height * ratio) / 32) * 32);
  const width = Math.max(32, Math.round((image.width * ratio) / 32) * 32);
  const pixels = resize(image, width, height);
  const plane = width * height;
  const data = new Float32Array(3 * plane);
  for (let p = 0; p < plane; p++) {
    for (let c = 0; c < 3; c++) {
      data[c * plane + p] = (pixels[p * 3 + 2 - c] / 255 - MEAN[c]) / STD[c];
    }
  }
  return { data, shape: [1, 3, height, width] };
}

/** A detected text box, in the original image's pixels, with the detector's mean probability. */
export interface TextBox extends Box {
  score: number;
}

/** Probability above which a pixel is text. */
const PIXEL_THRESHOLD = 0.3;
/** Mean probability below which a box is dropped. */
const BOX_THRESHOLD = 0.6;
/** How far a box grows past its pixels: area × ratio / perimeter on each side. */
const UNCLIP_RATIO = 1.5;
/** Boxes with a side shorter than this, in map pixels, are noise. */
const MIN_SIDE = 3;

/**
 * The text boxes of the detector's probability map (`height × width`, one FP32 per pixel), scaled
 * to an image of `imageWidth × imageHeight`, in reading order: the 8-connected regions above
 * {@link PIXEL_THRESHOLD}, each as its bounding box, kept when its mean probability reaches
 * {@link BOX_THRESHOLD}, grown by the unclip distance, sorted top to bottom, then left to right
 * within a line.
 */
export function findBoxes(
  map: Float32Array,
  width: number,
  height: number,
  imageWidth: number,
  imageHeight: number,
): TextBox[] {
  const boxes: TextBox[] = [];
  for (const r of regions(map, width, height)) {
    const w = r.x1 - r.x0, h = r.y1 - r.y0;
    if (Math.min(w, h) < MIN_SIDE) continue;
    let sum = 0;
    for (let y = r.y0; y < r.y1; y++) {
      for (let x = r.x0; x < r.x1; x++) sum += map[y * width + x];
    }
    const score = sum / (w * h);
    if (score < BOX_THRESHOLD) continue;
    const d = (w * h * UNCLIP_RATIO) / (2 * (w + h));
    if (Math.min(w, h) + 2 * d < MIN_SIDE + 2) continue;
    const sx = imageWidth / width, sy = imageHeight / height;
    boxes.push({
      x0: clamp(Math.round((r.x0 - d) * sx), imageWidth),
      y0: clamp(Math.round((r.y0 - d) * sy), imageHeight),
      x1: clamp(Math.round((r.x1 + d) * sx), imageWidth),
      y1: clamp(Math.round((r.y1 + d) * sy), imageHeight),
      score,
    });
  }
  return readingOrder(boxes);
}

function clamp(v: number, max: number): number {
  return Math.min(Math.max(v, 0), max);
}

/**
 * The bounding boxes of the 8-connected regions of pixels above the threshold, found run by run:
 * each row's runs join the runs of the row above that touch them (a union-find over runs).
 */
export function regions(map: Float32Array, width: number, height: number): Box[] {
  const runY: number[] = [], runX0: number[] = [], runX1: number[] = [];
  const parent: number[] = [];
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  let prevStart = 0, prevEnd = 0;
  for (let y = 0; y < height; y++) {
    const start = runY.length;
    for (let x = 0; x < width;) {
      if (map[y * width + x] <= PIXEL_THRESHOLD) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < width && map[y * width + x] > PIXEL_THRESHOLD) x++;
      const id = runY.length;
      runY.push(y), runX0.push(x0), runX1.push(x), parent.push(id);
      for (let p = prevStart; p < prevEnd; p++) {
        if (runX0[p] <= x && x0 <= runX1[p]) parent[find(p)] = find(id);
      }
    }
    prevStart = start, prevEnd = runY.length;
  }
  const byRoot = new Map<number, Box>();
  for (let i = 0; i < runY.length; i++) {
    const root = find(i);
    const box = byRoot.get(root);
    if (!box) {
      byRoot.set(root, { x0: runX0[i], y0: runY[i], x1: runX1[i], y1: runY[i] + 1 });
    } else {
      box.x0 = Math.min(box.x0, runX0[i]), box.x1 = Math.max(box.x1, runX1[i]);
      box.y0 = Math.min(box.y0, runY[i]), box.y1 = Math.max(box.y1, runY[i] + 1);
    }
  }
  return [...byRoot.values()];
}

/**
 * PaddleOCR's reading order: by top edge, then left edge; a box whose top is within 10 pixels of
 * the one before it and starts left of it moves before it (one line).
 */
export function readingOrder<T extends Box>(boxes: T[]): T[] {
  const sorted = [...boxes].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  for (let i = 0; i < sorted.length - 1; i++) {
    for (let j = i; j >= 0; j--) {
      const [a, b] = [sorted[j], sorted[j + 1]];
      if (Math.abs(b.y0 - a.y0) < 10 && b.x0 < a.x0) [sorted[j], sorted[j + 1]] = [b, a];
      else break;
    }
  }
  return sorted;
}
