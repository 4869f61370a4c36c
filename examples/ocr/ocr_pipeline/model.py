"""The OCR pipeline as one Triton model (Python backend, decoupled, ``async def execute``).

One request: ``IMAGE``, UINT8 [H, W, 3] RGB. The model runs ``ocr_det`` on the image through BLS,
finds the text boxes in its probability map, sends every box to ``ocr_rec`` at once (so that
Triton's dynamic batcher can batch them), and streams one response per line of text in reading
order as soon as it and the lines before it are read: ``TEXT`` (BYTES [1], UTF-8), ``BOX`` (INT32
[4]: x0, y0, x1, y1 in the image's pixels, x1/y1 exclusive) and ``SCORE`` (FP32 [2]: the detector's
and the recognizer's mean probability); then the final flag alone. A cancelled request stops
between lines.

The pre- and post-processing are examples/ocr/detect.ts and recognize.ts, step for step, in numpy.
"""

import asyncio
import os

import numpy as np
import triton_python_backend_utils as pb_utils

DETECTOR = ("ocr_det", "x", "sigmoid_0.tmp_0")
RECOGNIZER = ("ocr_rec", "x", "softmax_11.tmp_0")
DETECT_MAX_SIDE = 960
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
PIXEL_THRESHOLD = 0.3
BOX_THRESHOLD = 0.6
UNCLIP_RATIO = 1.5
MIN_SIDE = 3
RECOGNIZE_HEIGHT = 48
RECOGNIZE_WIDTH = 320


def js_round(v):
    """Math.round: halves go up (Python's round() goes to even)."""
    return int(np.floor(v + 0.5))


def resize(image, width, height):
    """Bilinear resize sampling pixel centres: float32 [height, width, 3], values 0..255."""
    ih, iw = image.shape[:2]
    fy = np.clip((np.arange(height) + 0.5) * (ih / height) - 0.5, 0, ih - 1)
    fx = np.clip((np.arange(width) + 0.5) * (iw / width) - 0.5, 0, iw - 1)
    y0 = np.floor(fy).astype(np.int64)
    x0 = np.floor(fx).astype(np.int64)
    y1 = np.minimum(y0 + 1, ih - 1)
    x1 = np.minimum(x0 + 1, iw - 1)
    wy = (fy - y0).astype(np.float32)[:, None, None]
    wx = (fx - x0).astype(np.float32)[None, :, None]
    img = image.astype(np.float32)
    a, b = img[y0][:, x0], img[y0][:, x1]
    d, e = img[y1][:, x0], img[y1][:, x1]
    top = a + (b - a) * wx
    bottom = d + (e - d) * wx
    return top + (bottom - top) * wy


def detector_input(image):
    h, w = image.shape[:2]
    ratio = min(1.0, DETECT_MAX_SIDE / max(w, h))
    height = max(32, js_round(h * ratio / 32) * 32)
    width = max(32, js_round(w * ratio / 32) * 32)
    bgr = resize(image, width, height)[:, :, ::-1]
    planes = ((bgr / 255 - MEAN) / STD).transpose(2, 0, 1)
    return np.ascontiguousarray(planes[None], dtype=np.float32)


def regions(mask):
    """Bounding boxes (x0, y0, x1, y1) of the 8-connected regions of mask, run by run."""
    runs = []  # (y, x0, x1)
    parent = []

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    prev = range(0)
    for y in range(mask.shape[0]):
        row = np.concatenate(([0], mask[y].view(np.int8), [0]))
        edges = np.diff(row)
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        first = len(runs)
        for x0, x1 in zip(starts.tolist(), ends.tolist()):
            i = len(runs)
            runs.append((y, x0, x1))
            parent.append(i)
            for p in prev:
                if runs[p][1] <= x1 and x0 <= runs[p][2]:
                    parent[find(p)] = find(i)
        prev = range(first, len(runs))
    boxes = {}
    for i, (y, x0, x1) in enumerate(runs):
        root = find(i)
        if root not in boxes:
            boxes[root] = [x0, y, x1, y + 1]
        else:
            b = boxes[root]
            b[0], b[1] = min(b[0], x0), min(b[1], y)
            b[2], b[3] = max(b[2], x1), max(b[3], y + 1)
    return list(boxes.values())


def reading_order(boxes):
    boxes = sorted(boxes, key=lambda b: (b[1], b[0]))
    for i in range(len(boxes) - 1):
        for j in range(i, -1, -1):
            a, b = boxes[j], boxes[j + 1]
            if abs(b[1] - a[1]) < 10 and b[0] < a[0]:
                boxes[j], boxes[j + 1] = b, a
            else:
                break
    return boxes


def find_boxes(prob, image_width, image_height):
    height, width = prob.shape
    found = []
    for x0, y0, x1, y1 in regions(prob > PIXEL_THRESHOLD):
        w, h = x1 - x0, y1 - y0
        if min(w, h) < MIN_SIDE:
            continue
        score = float(prob[y0:y1, x0:x1].astype(np.float64).sum() / (w * h))
        if score < BOX_THRESHOLD:
            continue
        d = w * h * UNCLIP_RATIO / (2 * (w + h))
        if min(w, h) + 2 * d < MIN_SIDE + 2:
            continue
        sx, sy = image_width / width, image_height / height

        def clamp(v, top):
            return min(max(v, 0), top)

        found.append((
            clamp(js_round((x0 - d) * sx), image_width),
            clamp(js_round((y0 - d) * sy), image_height),
            clamp(js_round((x1 + d) * sx), image_width),
            clamp(js_round((y1 + d) * sy), image_height),
            score,
        ))
    return reading_order(found)


def recognizer_input(image, box):
    x0, y0, x1, y1 = box[:4]
    part = image[y0:y1, x0:x1]
    h, w = part.shape[:2]
    width = max(1, min(RECOGNIZE_WIDTH, int(np.ceil(RECOGNIZE_HEIGHT * w / h))))
    bgr = resize(part, width, RECOGNIZE_HEIGHT)[:, :, ::-1]
    out = np.zeros((3, RECOGNIZE_HEIGHT, RECOGNIZE_WIDTH), dtype=np.float32)
    out[:, :, :width] = (bgr / 127.5 - 1).transpose(2, 0, 1)
    return out


def ctc_decode(probs, chars):
    best = probs.argmax(axis=1)
    p = probs.max(axis=1)
    keep = (best != 0) & (best != np.concatenate(([0], best[:-1])))
    text = "".join(chars[k] for k in best[keep].tolist())
    return text, float(p[keep].mean()) if keep.any() else 0.0


class TritonPythonModel:
    def initialize(self, args):
        folder = os.path.join(args["model_repository"], args["model_version"])
        with open(os.path.join(folder, "ppocr_keys_v1.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.chars = [""] + lines + [" "]

    async def _infer(self, model, tensor):
        name, input_name, output_name = model
        request = pb_utils.InferenceRequest(
            model_name=name,
            inputs=[pb_utils.Tensor(input_name, tensor)],
            requested_output_names=[output_name],
        )
        response = await request.async_exec()
        if response.has_error():
            raise pb_utils.TritonModelException(response.error().message())
        return pb_utils.get_output_tensor_by_name(response, output_name).as_numpy()

    async def execute(self, requests):
        await asyncio.gather(*(self._read(r) for r in requests))

    async def _read(self, request):
        sender = request.get_response_sender()
        final = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        reads = []
        try:
            image = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            if image.ndim != 3 or image.shape[2] != 3 or 0 in image.shape:
                raise pb_utils.TritonModelException(
                    f"IMAGE must be [H, W, 3] with H, W > 0, got {list(image.shape)}"
                )
            prob = await self._infer(DETECTOR, detector_input(image))
            boxes = find_boxes(prob[0, 0], image.shape[1], image.shape[0])
            boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
            # Every crop goes out at once; each line is sent as soon as it and those before it
            # are read (asyncio.gather would hold them all back until the last).
            reads = [
                asyncio.ensure_future(self._infer(RECOGNIZER, recognizer_input(image, b)[None]))
                for b in boxes
            ]
            for box, read in zip(boxes, reads):
                probs = await read
                if sender.is_cancelled():
                    error = pb_utils.TritonError("request cancelled", pb_utils.TritonError.CANCELLED)
                    sender.send(pb_utils.InferenceResponse(error=error), flags=final)
                    return
                text, score = ctc_decode(probs[0], self.chars)
                sender.send(pb_utils.InferenceResponse([
                    pb_utils.Tensor("TEXT", np.array([text.encode("utf-8")], dtype=np.object_)),
                    pb_utils.Tensor("BOX", np.array(box[:4], dtype=np.int32)),
                    pb_utils.Tensor("SCORE", np.array([box[4], score], dtype=np.float32)),
                ]))
            sender.send(flags=final)
        except Exception as e:  # noqa: BLE001 - every failure goes back to the client
            sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))), flags=final)
        finally:
            # The recognizer's answers still on their way are awaited, not dropped.
            await asyncio.gather(*reads, return_exceptions=True)
