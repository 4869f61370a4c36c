"""Drives compression with Triton's Python clients: tritonclient.http's
request_compression_algorithm / response_compression_algorithm and tritonclient.grpc's
compression_algorithm (unary infer and a stream), "gzip" and "deflate", at several sizes.

Usage: python3 tritonclient_compression_check.py HTTP_HOST:PORT GRPC_HOST:PORT [GRPC_HOST:PORT ...]

Run by tests/serve_compression.test.ts against `serve()` and `serveGrpc()` on tests/models
(explicit model control, every model loaded). Exits non-zero, with the failed assertion, when a
tensor does not come back byte-exact.
"""

import queue
import sys

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

ALGORITHMS = ("gzip", "deflate")
# Tiny (larger compressed), around 64 KiB, several MiB.
SIZES = (3, 64 * 1024, 64 * 1024 + 1, 5 * 1024 * 1024 + 7)


def tensor_bytes(n: int, seed: int) -> np.ndarray:
    """n bytes that compress, but not to nothing: runs of a byte between random stretches."""
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 256, size=n, dtype=np.uint8)
    blocks = np.arange(n) >> 9
    out[blocks % 2 == 1] = (blocks[blocks % 2 == 1] & 0xFF).astype(np.uint8)
    return out.reshape(1, n)


def check_http(url: str) -> int:
    client = httpclient.InferenceServerClient(url=url)
    checks = 0
    for algorithm in ALGORITHMS:
        for size in SIZES:
            data = tensor_bytes(size, size)
            for binary in (True, False) if size < 100_000 else (True,):
                tensor = httpclient.InferInput("INPUT0", list(data.shape), "UINT8")
                tensor.set_data_from_numpy(data, binary_data=binary)
                output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
                result = client.infer(
                    "identity_uint8",
                    [tensor],
                    outputs=[output],
                    request_compression_algorithm=algorithm,
                    response_compression_algorithm=algorithm,
                )
                out = result.as_numpy("OUTPUT0")
                assert out.shape == data.shape, (algorithm, size, out.shape)
                assert np.array_equal(out, data), (algorithm, size, binary)
                checks += 1
        # Request compressed only, and response compressed only.
        data = tensor_bytes(1000, 7)
        for request, response in ((algorithm, None), (None, algorithm)):
            tensor = httpclient.InferInput("INPUT0", list(data.shape), "UINT8")
            tensor.set_data_from_numpy(data)
            result = client.infer(
                "identity_uint8",
                [tensor],
                request_compression_algorithm=request,
                response_compression_algorithm=response,
            )
            assert np.array_equal(result.as_numpy("OUTPUT0"), data), (request, response)
            checks += 1
    client.close()
    return checks


def check_grpc(url: str) -> int:
    client = grpcclient.InferenceServerClient(url=url)
    checks = 0
    for algorithm in ALGORITHMS:
        for size in SIZES:
            data = tensor_bytes(size, size + 1)
            tensor = grpcclient.InferInput("INPUT0", list(data.shape), "UINT8")
            tensor.set_data_from_numpy(data)
            result = client.infer("identity_uint8", [tensor], compression_algorithm=algorithm)
            assert np.array_equal(result.as_numpy("OUTPUT0"), data), (url, algorithm, size)
            checks += 1

        responses: "queue.Queue" = queue.Queue()
        client.start_stream(
            callback=lambda result, error: responses.put((result, error)),
            compression_algorithm=algorithm,
        )
        sent = {}
        for i, size in enumerate(SIZES):
            data = tensor_bytes(size, 100 + i)
            tensor = grpcclient.InferInput("INPUT0", list(data.shape), "UINT8")
            tensor.set_data_from_numpy(data)
            sent[f"s{i}"] = data
            client.async_stream_infer("identity_uint8", [tensor], request_id=f"s{i}")
        for _ in sent:
            result, error = responses.get(timeout=60)
            assert error is None, error
            rid = result.get_response().id
            assert np.array_equal(result.as_numpy("OUTPUT0"), sent[rid]), (url, algorithm, rid)
            checks += 1
        client.stop_stream()
    client.close()
    return checks


def main(http_url: str, grpc_urls: list) -> None:
    checks = check_http(http_url)
    for url in grpc_urls:
        checks += check_grpc(url)
    print(f"tritonclient compression: all {checks} checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
