"""The inference scenarios of bench/inference.ts through Triton's in-process Python API.

`npm run bench` (bench/run.mjs) runs this file with `$TRITONSERVER_PYTHON`, an interpreter that
can `import tritonserver`, for the "Python API" column: what a user would otherwise pick. The
scenarios are the ones the C client and the binding run, with the same models, shapes, warm-ups
and statistics, written the way the package's documentation uses it:

- `latency_RxC`: identity_int32, INPUT0 INT32 [R, 16], concurrency 1, with the blocking
  `model.infer()` (lower latency than `async_infer` at concurrency 1): p50 and p99 in µs.
- `throughput_cN_RxC`: the same from N asyncio tasks, each awaiting `model.async_infer()` and
  issuing its next request when the previous one's responses ended: inferences per second.
- `stream_RxE`: R concurrent repeat_int32 requests of E elements (DELAY 0, WAIT 0) through
  `model.async_infer()`, each streaming E responses: responses per second.

Every response's output is read as the binding reads it: a zero-copy NumPy view (DLPack) and
its first element.

The core is the library in `$TRITONSERVER_LIB`: it is loaded first, so the package's extension
module binds to it whatever its run path says, and the JSON names the library actually mapped.

Environment: TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR, BENCH_MODELS (model repository),
BENCH_DURATION_MS (per timed run, default 1000), BENCH_ONLY (comma-separated scenario names or
`scenarios`; all by default), BENCH_OUT (JSON output path; stdout otherwise). With `--check` it
only imports the package and prints its version.
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
    # Loaded under its soname before the extension module asks for it, so that the dynamic
    # loader hands the extension this library rather than the one its run path names.
    ctypes.CDLL(LIB, mode=ctypes.RTLD_GLOBAL)

import numpy  # noqa: E402  (after the core is loaded)
import tritonserver  # noqa: E402

sink = 0


def identity_inputs(rows):
    return {"INPUT0": numpy.arange(rows * 16, dtype=numpy.int32).reshape(rows, 16)}


def read_first(response, name):
    """The first element of an output, through a zero-copy NumPy view."""
    return int(numpy.from_dlpack(response.outputs[name]).flat[0])


def latency_loop(model, rows, ms, latencies=None):
    global sink
    inputs = identity_inputs(rows)
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        for response in model.infer(inputs=inputs):
            sink += read_first(response, "OUTPUT0")
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)


def latency(model, rows, ms):
    latency_loop(model, rows, ms / 4)
    lat = []
    latency_loop(model, rows, ms, lat)
    lat.sort()
    return {
        "p50": lat[len(lat) >> 1] * 1e6,
        "p99": lat[(len(lat) * 99) // 100] * 1e6,
        "count": len(lat),
    }


async def throughput_loop(model, rows, workers, ms):
    inputs = identity_inputs(rows)
    start = time.perf_counter()
    end = start + ms / 1000
    inferences = 0

    async def worker():
        global sink
        nonlocal inferences
        while time.perf_counter() < end:
            async for response in model.async_infer(inputs=inputs):
                sink += read_first(response, "OUTPUT0")
            inferences += 1

    await asyncio.gather(*(worker() for _ in range(workers)))
    return inferences, time.perf_counter() - start


async def throughput(model, rows, workers, ms):
    await throughput_loop(model, rows, workers, ms / 4)
    inferences, seconds = await throughput_loop(model, rows, workers, ms)
    return inferences / seconds


async def stream(model, requests, elements):
    inputs = {
        "IN": numpy.zeros(elements, dtype=numpy.int32),
        "DELAY": numpy.zeros(elements, dtype=numpy.uint32),
        "WAIT": numpy.zeros(1, dtype=numpy.uint32),
    }
    responses = 0

    async def one():
        global sink
        nonlocal responses
        async for response in model.async_infer(inputs=inputs):
            # The last response of a decoupled request may carry only the final flag.
            if "OUT" in response.outputs:
                sink += read_first(response, "OUT")
                responses += 1

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(requests)))
    seconds = time.perf_counter() - start
    if responses != requests * elements:
        raise RuntimeError(f"{responses} responses, expected {requests * elements}")
    return responses / seconds


def mapped_core():
    """The path of the libtritonserver.so this process has mapped (Linux), or None."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libtritonserver.so"):
                    return path
    except OSError:
        pass
    return None


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    models = os.environ.get("BENCH_MODELS") or os.path.join(root, "tests", "models")
    ms = float(os.environ.get("BENCH_DURATION_MS") or 1000)
    only_list = [s for s in (os.environ.get("BENCH_ONLY") or "").split(",") if s]

    def only(name):
        return not only_list or name in only_list or "scenarios" in only_list

    options = {
        "model_repository": os.path.abspath(models),
        "model_control_mode": tritonserver.ModelControlMode.EXPLICIT,
        "startup_models": ["identity_int32", "repeat_int32"],
        "log_info": False,
        "log_warn": False,
    }
    if os.environ.get("TRITONSERVER_BACKEND_DIR"):
        options["backend_directory"] = os.environ["TRITONSERVER_BACKEND_DIR"]
    server = tritonserver.Server(**options).start(wait_until_ready=True, timeout=120)
    identity = server.model("identity_int32")
    repeat = server.model("repeat_int32")
    # bench/inference.ts's scenarios, in its table order.
    run = {
        "latency_1x16": lambda: latency(identity, 1, ms),
        "latency_8x16": lambda: latency(identity, 8, ms),
        "throughput_c16_1x16": lambda: asyncio.run(throughput(identity, 1, 16, ms)),
        "throughput_c128_1x16": lambda: asyncio.run(throughput(identity, 1, 128, ms)),
        "throughput_c16_8x16": lambda: asyncio.run(throughput(identity, 8, 16, ms)),
        "throughput_c128_8x16": lambda: asyncio.run(throughput(identity, 8, 128, ms)),
        "stream_1x100000": lambda: asyncio.run(stream(repeat, 1, 100_000)),
        "stream_128x1000": lambda: asyncio.run(stream(repeat, 128, 1000)),
    }
    scenarios = {name: scenario() for name, scenario in run.items() if only(name)}
    try:
        server.stop()
    except tritonserver.TritonError as e:
        print(f"bench/python_api.py: server.stop(): {e}", file=sys.stderr)
    results = {
        "runtime": "python",
        "version": f"tritonserver {tritonserver.__version__}, Python {platform.python_version()}",
        "library": mapped_core(),
        "scenarios": scenarios,
    }
    if sink == 0.5:
        print(sink)  # keeps reads observable
    text = json.dumps(results, indent=2)
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        # bench/run.mjs asks this first: can this interpreter import tritonserver on this core?
        print(f"tritonserver {tritonserver.__version__}, Python {platform.python_version()}")
    else:
        main()
