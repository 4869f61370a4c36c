"""The OCR scenarios of bench/ocr.ts through Triton's in-process Python API.

`npm run bench:ocr` (bench/run_ocr.mjs) runs this file with `$TRITONSERVER_PYTHON`, an
interpreter that can `import tritonserver`, for the "Python API" column. It reads the same
rendered image and detector input that bench/ocr.ts makes (written by bench/run_ocr.mjs to
`$OCR_INPUTS`: image.u8, det.f32 and shapes.json) and runs the same scenarios on the same model
repository (`$OCR_REPOSITORY`, laid out by examples/ocr/repository.ts):

- `det_latency`, `det_cN`: `ocr_det` on the prepared input (ms per image at concurrency 1,
  images per second from N asyncio tasks);
- `pipeline_latency`, `pipeline_cN`: the image through `ocr_pipeline`, every streamed line read.

Environment: TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR, OCR_REPOSITORY, OCR_INPUTS,
BENCH_DURATION_MS (per timed run, default 2000), BENCH_OUT (JSON output path; stdout otherwise).
"""

import asyncio
import ctypes
import json
import os
import platform
import sys
import time

LIB = os.environ.get("TRITONSERVER_LIB")
if LIB:
    # Loaded under its soname first, so that the extension module binds to this library.
    ctypes.CDLL(LIB, mode=ctypes.RTLD_GLOBAL)

import numpy  # noqa: E402
import tritonserver  # noqa: E402

CONCURRENCY = [1, 8, 32]


def load_inputs(folder):
    with open(os.path.join(folder, "shapes.json")) as f:
        shapes = json.load(f)
    image = numpy.fromfile(os.path.join(folder, "image.u8"), dtype=numpy.uint8)
    det = numpy.fromfile(os.path.join(folder, "det.f32"), dtype=numpy.float32)
    return (
        image.reshape(shapes["image"]),
        det.reshape(shapes["det"]),
        shapes["lines"],
    )


async def detect(model, x):
    async for response in model.async_infer(inputs={"x": x}):
        return float(numpy.from_dlpack(response.outputs["sigmoid_0.tmp_0"]).flat[0])


async def read(model, image):
    lines = []
    async for response in model.async_infer(inputs={"IMAGE": image}):
        if "TEXT" in response.outputs:
            text = response.outputs["TEXT"].to_string_array()
            lines.append(text.flat[0].decode() if isinstance(text.flat[0], bytes) else str(text.flat[0]))
    return lines


async def loop(job, workers, seconds):
    latencies = []
    start = time.perf_counter()
    end = start + seconds

    async def worker():
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            await job()
            latencies.append((time.perf_counter() - t0) * 1000)

    await asyncio.gather(*(worker() for _ in range(workers)))
    return latencies, time.perf_counter() - start


async def scenarios(det_model, pipeline, image, x, lines, ms):
    got = await read(pipeline, image)
    if got != lines:
        raise RuntimeError(f"ocr_pipeline read {got}")
    out = {}
    jobs = [("det", lambda: detect(det_model, x)), ("pipeline", lambda: read(pipeline, image))]
    for what, job in jobs:
        await loop(job, 1, ms / 4000)
        lat, _ = await loop(job, 1, ms / 1000)
        lat.sort()
        out[f"{what}_latency"] = {
            "p50": lat[len(lat) >> 1],
            "p90": lat[int(len(lat) * 0.9)],
            "count": len(lat),
        }
        for n in CONCURRENCY:
            await loop(job, n, ms / 4000)
            lat, seconds = await loop(job, n, ms / 1000)
            out[f"{what}_c{n}"] = len(lat) / seconds
    return out


def main():
    ms = float(os.environ.get("BENCH_DURATION_MS") or 2000)
    image, x, lines = load_inputs(os.environ["OCR_INPUTS"])
    options = {
        "model_repository": os.path.abspath(os.environ["OCR_REPOSITORY"]),
        "model_control_mode": tritonserver.ModelControlMode.EXPLICIT,
        "startup_models": ["ocr_det", "ocr_rec", "ocr_pipeline"],
        "log_info": False,
        "log_warn": False,
    }
    if os.environ.get("TRITONSERVER_BACKEND_DIR"):
        options["backend_directory"] = os.environ["TRITONSERVER_BACKEND_DIR"]
    server = tritonserver.Server(**options).start(wait_until_ready=True, timeout=240)
    results = asyncio.run(
        scenarios(server.model("ocr_det"), server.model("ocr_pipeline"), image, x, lines, ms)
    )
    try:
        server.stop()
    except tritonserver.TritonError as e:
        print(f"bench/ocr_python_api.py: server.stop(): {e}", file=sys.stderr)
    text = json.dumps({
        "engine": "python",
        "runtime": "python",
        "version": f"tritonserver {tritonserver.__version__}, Python {platform.python_version()}",
        "lines": len(lines),
        "scenarios": results,
    }, indent=2)
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
