"""Drives a KServe v2 server with real tensor sizes through Triton's Python clients.

Usage: python3 tritonclient_large_check.py http|grpc HOST:PORT

Run by tests/serve_large_clients.test.ts against `serve()` and `serveGrpc()` on tests/models
(every model loaded). Through the identity models, each output must come back byte for byte:
128 KiB (past the binding's 64 KiB copy limit: a view of Triton's buffer), 64 MiB of INT32 and of
UINT8 in one tensor each way, and eight 8 MiB calls at once on one client (one gRPC channel; one
HTTP client's connection pool). Exits non-zero, with the failed assertion, otherwise.
"""

import sys

import numpy as np

MIB = 1 << 20


def patterned(dtype: str, nbytes: int, seed: int) -> np.ndarray:
    """`nbytes` of a pattern that a shift, a truncation or zeros would not match, as one batch."""
    raw = (np.arange(nbytes, dtype=np.uint64) * 2654435761 + seed * 97) >> np.uint64(7)
    data = raw.astype(np.uint8)
    return data.view(np.dtype(dtype.lower())).reshape(1, -1)


def main(protocol: str, url: str) -> None:
    if protocol == "grpc":
        import tritonclient.grpc as client_module

        client = client_module.InferenceServerClient(url=url)
    else:
        import tritonclient.http as client_module

        client = client_module.InferenceServerClient(
            url=url, concurrency=8, connection_timeout=300, network_timeout=300
        )

    def request(dtype: str, data: np.ndarray):
        tensor = client_module.InferInput("INPUT0", list(data.shape), dtype)
        tensor.set_data_from_numpy(data)
        outputs = [client_module.InferRequestedOutput("OUTPUT0")]
        return [tensor], outputs

    def check(label: str, result, data: np.ndarray) -> None:
        out = result.as_numpy("OUTPUT0")
        assert out is not None, f"{label}: no OUTPUT0"
        assert out.shape == data.shape, f"{label}: shape {out.shape}, sent {data.shape}"
        assert out.tobytes() == data.tobytes(), f"{label}: {out.nbytes} bytes differ from those sent"

    checks = 0
    for dtype, nbytes in (("INT32", 128 * 1024), ("INT32", 64 * MIB), ("UINT8", 64 * MIB)):
        data = patterned(dtype, nbytes, checks)
        inputs, outputs = request(dtype, data)
        model = "identity_" + dtype.lower()
        check(f"{dtype} {nbytes} bytes", client.infer(model, inputs, outputs=outputs), data)
        checks += 1

    sent = [patterned("INT32", 8 * MIB, 100 + k) for k in range(8)]
    if protocol == "grpc":
        import queue

        done: "queue.Queue" = queue.Queue()
        for k, data in enumerate(sent):
            inputs, outputs = request("INT32", data)
            client.async_infer(
                "identity_int32",
                inputs,
                outputs=outputs,
                request_id=str(k),
                callback=lambda result, error: done.put((result, error)),
            )
        for _ in sent:
            result, error = done.get(timeout=300)
            assert error is None, f"8 x 8 MiB at once: {error}"
            k = int(result.get_response().id)
            check(f"8 x 8 MiB at once, call {k}", result, sent[k])
            checks += 1
    else:
        pending = []
        for data in sent:
            inputs, outputs = request("INT32", data)
            pending.append(client.async_infer("identity_int32", inputs, outputs=outputs))
        for k, (handle, data) in enumerate(zip(pending, sent)):
            check(f"8 x 8 MiB at once, call {k}", handle.get_result(), data)
            checks += 1

    client.close()
    print(f"tritonclient.{protocol} at real sizes: all {checks} checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
