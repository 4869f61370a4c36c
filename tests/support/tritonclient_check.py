"""Drives a KServe v2 HTTP server with Triton's Python client (tritonclient.http).

Usage: python3 tritonclient_check.py HOST:PORT

Run by tests/serve_tritonclient.test.ts against `serve()` on tests/models. Exits non-zero, with the
failed assertion, when an answer is not the one tritonserver would give.
"""

import sys

import numpy as np
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException
from tritonclient_values import IDENTITY_VALUES


def main(url: str) -> None:
    client = httpclient.InferenceServerClient(url=url)
    checks = 0

    assert client.is_server_live()
    assert client.is_server_ready()
    meta = client.get_server_metadata()
    assert "binary_tensor_data" in meta["extensions"], meta
    assert client.is_model_ready("add_sub")
    assert client.get_model_metadata("add_sub")["inputs"][0]["name"] == "INPUT0"
    assert client.get_model_config("identity_fp32")["max_batch_size"] == 8
    index = client.get_model_repository_index()
    assert any(m["name"] == "identity_int32" for m in index), index
    checks += 7

    # add_sub with binary inputs; one output binary, one JSON.
    a = np.arange(16, dtype=np.float32)
    b = np.ones(16, dtype=np.float32)
    inputs = [httpclient.InferInput("INPUT0", [16], "FP32"), httpclient.InferInput("INPUT1", [16], "FP32")]
    inputs[0].set_data_from_numpy(a, binary_data=True)
    inputs[1].set_data_from_numpy(b, binary_data=False)
    outputs = [
        httpclient.InferRequestedOutput("OUTPUT0", binary_data=True),
        httpclient.InferRequestedOutput("OUTPUT1", binary_data=False),
    ]
    result = client.infer("add_sub", inputs, outputs=outputs, request_id="tc-1")
    assert np.array_equal(result.as_numpy("OUTPUT0"), a + b)
    assert np.array_equal(result.as_numpy("OUTPUT1"), a - b)
    assert result.get_response()["id"] == "tc-1"
    checks += 3

    # Every data type through identity models, binary both ways and (where JSON can) JSON.
    for dtype, data in IDENTITY_VALUES.items():
        model = "identity_" + dtype.lower()
        for binary in (True, False):
            if dtype == "FP16" and not binary:
                continue  # FP16 has no JSON form
            inp = httpclient.InferInput("INPUT0", list(data.shape), dtype)
            inp.set_data_from_numpy(data, binary_data=binary)
            out = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
            got = client.infer(model, [inp], outputs=[out]).as_numpy("OUTPUT0")
            if dtype == "BYTES" and not binary:
                got = np.array([[e if isinstance(e, bytes) else e.encode() for e in got[0]]], dtype=np.object_)
            assert got.shape == data.shape, (dtype, binary, got.shape)
            assert np.array_equal(got, data), (dtype, binary, got, data)
            checks += 1

    # Errors come back as InferenceServerException with the server's message.
    try:
        inp = httpclient.InferInput("INPUT0", [2], "INT32")
        inp.set_data_from_numpy(np.array([1, 2], dtype=np.int32))
        client.infer("error_model", [inp])
        raise AssertionError("error_model did not fail")
    except InferenceServerException as e:
        assert "this model always fails" in e.message(), e.message()
        assert e.status() == "500", e.status()
    checks += 1

    stats = client.get_inference_statistics("add_sub")
    assert stats["model_stats"][0]["inference_stats"]["success"]["count"] >= 1, stats
    checks += 1

    client.close()
    print(f"tritonclient: all {checks} checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
