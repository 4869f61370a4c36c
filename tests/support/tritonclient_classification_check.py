"""Asks a KServe v2 server for classifications with Triton's Python clients
(tritonclient.http and tritonclient.grpc, `InferRequestedOutput(name, class_count=k)`).

Usage: python3 tritonclient_classification_check.py HTTP_HOST:PORT GRPC_HOST:PORT

Run by tests/serve_classification_tritonclient.test.ts against `serve()` and `serveGrpc()` on
tests/models (labels_fp32, labels_int32, identity_int32, identity_bool loaded). The answers it
expects are tritonserver's for the same requests. Exits non-zero, with the failed assertion, when
an answer is another.
"""

import sys

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

# (model, input, class_count, the classification as the client decodes it)
CASES = [
    (
        "labels_fp32",
        np.array([[0.1, 0.7, 0.05, 0.15]], dtype=np.float32),
        2,
        [[b"0.700000:1:dog", b"0.150000:3:fish"]],
    ),
    (
        "labels_fp32",
        np.array([[0.5, -1, 2.25, 1e10, 7, 7], [0, 0, 0, 0, 0, 0]], dtype=np.float32),
        3,
        [
            [b"10000000000.000000:3:fish", b"7.000000:4", b"7.000000:5"],
            [b"0.000000:0:cat", b"0.000000:1:dog", b"0.000000:2:bird"],
        ],
    ),
    (
        "labels_fp32",
        np.array([[3, 1, 2, -4]], dtype=np.float32),
        10,
        [[b"3.000000:0:cat", b"2.000000:2:bird", b"1.000000:1:dog", b"-4.000000:3:fish"]],
    ),
    (
        "labels_int32",
        np.array([[5, -3, 9], [0, 9, 1]], dtype=np.int32),
        4,
        [b"9:2", b"9:4", b"5:0:zero", b"1:5"],
    ),
    (
        "identity_int32",
        np.array([[i % 3 for i in range(40)]], dtype=np.int32),
        5,
        [[b"2:29", b"2:20", b"2:17", b"2:23", b"2:14"]],
    ),
]


def as_bytes(array):
    """The elements as bytes (the HTTP client gives JSON BYTES as str, binary ones as bytes)."""
    return np.vectorize(lambda x: x.encode() if isinstance(x, str) else x, otypes=[np.object_])(array)


def http_infer(client, model, data, k, binary):
    inp = httpclient.InferInput("INPUT0", list(data.shape), "FP32" if data.dtype == np.float32 else "INT32")
    inp.set_data_from_numpy(data, binary_data=True)
    out = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary, class_count=k)
    return client.infer(model, [inp], outputs=[out])


def grpc_infer(client, model, data, k):
    inp = grpcclient.InferInput("INPUT0", list(data.shape), "FP32" if data.dtype == np.float32 else "INT32")
    inp.set_data_from_numpy(data)
    out = grpcclient.InferRequestedOutput("OUTPUT0", class_count=k)
    return client.infer(model, [inp], outputs=[out])


def main(http_url: str, grpc_url: str) -> None:
    http = httpclient.InferenceServerClient(url=http_url)
    grpc = grpcclient.InferenceServerClient(url=grpc_url)
    checks = 0

    assert "classification" in http.get_server_metadata()["extensions"]
    assert "classification" in grpc.get_server_metadata(as_json=True)["extensions"]
    checks += 2

    for model, data, k, want in CASES:
        expected = np.array(want, dtype=np.object_)
        for binary in (True, False):
            result = http_infer(http, model, data, k, binary)
            got = as_bytes(result.as_numpy("OUTPUT0"))
            assert got.shape == expected.shape and (got == expected).all(), (model, binary, got)
            assert result.get_output("OUTPUT0")["datatype"] == "BYTES"
            checks += 1
        result = grpc_infer(grpc, model, data, k)
        got = result.as_numpy("OUTPUT0")
        assert got.shape == expected.shape and (got == expected).all(), (model, "grpc", got)
        assert result.get_output("OUTPUT0").datatype == "BYTES"
        checks += 1

    # A data type tritonserver does not classify: its error, as each client raises it.
    flags = np.array([[True, False]])
    inp = httpclient.InferInput("INPUT0", [1, 2], "BOOL")
    inp.set_data_from_numpy(flags)
    want = "class result not available for output due to unsupported type 'BOOL'"
    try:
        http.infer("identity_bool", [inp], outputs=[httpclient.InferRequestedOutput("OUTPUT0", class_count=1)])
        raise AssertionError("HTTP: BOOL classified")
    except InferenceServerException as e:
        assert want in e.message(), e.message()
        checks += 1
    inp = grpcclient.InferInput("INPUT0", [1, 2], "BOOL")
    inp.set_data_from_numpy(flags)
    try:
        grpc.infer("identity_bool", [inp], outputs=[grpcclient.InferRequestedOutput("OUTPUT0", class_count=1)])
        raise AssertionError("gRPC: BOOL classified")
    except InferenceServerException as e:
        assert want in e.message(), e.message()
        assert e.status() == "StatusCode.INVALID_ARGUMENT", e.status()
        checks += 1

    print(f"tritonclient classification: all {checks} checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
