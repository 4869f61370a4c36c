"""Runs ocr_pipeline/model.py's pre- and post-processing on files the OCR tests wrote, so that the
tests can check them against examples/ocr/*.ts step for step.

Usage: ocr_steps_check.py <model.py> <dir>. <dir> holds image.u8 (H×W×3), image.json ({"width",
"height"}), map.f32 with map.json ({"width", "height"}), rec.f32 with rec.json ({"steps",
"classes"}) and dictionary.txt; this writes det_input.f32, rec_input.f32 (the first box's input)
and steps.json (the boxes and the decoded text).
"""

import importlib.util
import json
import os
import sys
import types

import numpy as np

# model.py imports Triton's Python-backend module; these steps use none of it.
sys.modules["triton_python_backend_utils"] = types.ModuleType("triton_python_backend_utils")
spec = importlib.util.spec_from_file_location("ocr_pipeline_model", sys.argv[1])
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)

folder = sys.argv[2]


def load(name):
    with open(os.path.join(folder, name)) as f:
        return json.load(f)


size = load("image.json")
image = np.fromfile(os.path.join(folder, "image.u8"), dtype=np.uint8)
image = image.reshape(size["height"], size["width"], 3)
model.detector_input(image).tofile(os.path.join(folder, "det_input.f32"))

shape = load("map.json")
prob = np.fromfile(os.path.join(folder, "map.f32"), dtype=np.float32)
boxes = model.find_boxes(prob.reshape(shape["height"], shape["width"]), size["width"], size["height"])
model.recognizer_input(image, boxes[0]).tofile(os.path.join(folder, "rec_input.f32"))

rec = load("rec.json")
probs = np.fromfile(os.path.join(folder, "rec.f32"), dtype=np.float32)
with open(os.path.join(folder, "dictionary.txt"), encoding="utf-8") as f:
    chars = [""] + f.read().splitlines() + [" "]
text, score = model.ctc_decode(probs.reshape(rec["steps"], rec["classes"]), chars)
with open(os.path.join(folder, "steps.json"), "w") as f:
    json.dump({"boxes": [list(b) for b in boxes], "text": text, "score": score}, f)
