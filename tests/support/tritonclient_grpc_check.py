"""Drives a KServe v2 gRPC server with Triton's Python client (tritonclient.grpc).

Usage: python3 tritonclient_grpc_check.py HOST:PORT

Run by tests/serve_grpc_tritonclient.test.ts against `serveGrpc()` on tests/models (explicit model
control, every model loaded). Exits non-zero, with the failed assertion, when an answer is not the
one tritonserver would give.
"""

import queue
import sys

import numpy as np
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException
from tritonclient_values import IDENTITY_VALUES


def main(url: str) -> None:
    client = grpcclient.InferenceServerClient(url=url)
    checks = 0

    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("add_sub")
    meta = client.get_model_metadata("add_sub", as_json=True)
    assert [i["name"] for i in meta["inputs"]] == ["INPUT0", "INPUT1"], meta
    config = client.get_model_config("identity_fp32", as_json=True)["config"]
    assert config["max_batch_size"] == 8, config
    assert config["input"][0]["data_type"] == "TYPE_FP32", config
    repeat = client.get_model_config("repeat_int32", as_json=True)["config"]
    assert repeat["model_transaction_policy"]["decoupled"] is True, repeat
    index = client.get_model_repository_index(as_json=True)
    assert any(m["name"] == "identity_int32" for m in index["models"]), index
    checks += 8

    a = np.arange(16, dtype=np.float32)
    b = np.ones(16, dtype=np.float32)
    inputs = [grpcclient.InferInput("INPUT0", [16], "FP32"), grpcclient.InferInput("INPUT1", [16], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("add_sub", inputs, request_id="tc-1")
    assert np.array_equal(result.as_numpy("OUTPUT0"), a + b)
    assert np.array_equal(result.as_numpy("OUTPUT1"), a - b)
    assert result.get_response().id == "tc-1"
    checks += 3

    for dtype, data in IDENTITY_VALUES.items():
        model = "identity_" + dtype.lower()
        tensor = grpcclient.InferInput("INPUT0", list(data.shape), dtype)
        tensor.set_data_from_numpy(data)
        out = client.infer(model, [tensor]).as_numpy("OUTPUT0")
        assert out.shape == data.shape and np.array_equal(out, data), (dtype, out)
        checks += 1

    try:
        client.infer("no_such_model", inputs)
        raise AssertionError("no error for an unknown model")
    except InferenceServerException as e:
        assert e.status() == "StatusCode.NOT_FOUND", e.status()
        assert "no_such_model" in e.message(), e.message()
    checks += 1

    # A decoupled model on a stream: responses as they come, with the final flag.
    responses: "queue.Queue" = queue.Queue()
    client.start_stream(callback=lambda result, error: responses.put((result, error)))
    stream_inputs = [
        grpcclient.InferInput("IN", [3], "INT32"),
        grpcclient.InferInput("DELAY", [3], "UINT32"),
        grpcclient.InferInput("WAIT", [1], "UINT32"),
    ]
    stream_inputs[0].set_data_from_numpy(np.array([4, 5, 6], dtype=np.int32))
    stream_inputs[1].set_data_from_numpy(np.zeros(3, dtype=np.uint32))
    stream_inputs[2].set_data_from_numpy(np.zeros(1, dtype=np.uint32))
    client.async_stream_infer(
        "repeat_int32", stream_inputs, request_id="s-1", enable_empty_final_response=True
    )
    got = []
    while True:
        result, error = responses.get(timeout=30)
        assert error is None, error
        response = result.get_response()
        final = response.parameters["triton_final_response"].bool_param
        if response.outputs:
            got.append(int(result.as_numpy("OUT")[0]))
        if final:
            break
    assert got == [4, 5, 6], got
    client.async_stream_infer("no_such_model", stream_inputs)
    result, error = responses.get(timeout=30)
    assert result is None and "no_such_model" in str(error), (result, error)
    client.stop_stream()
    checks += 2

    client.unload_model("identity_int8")
    assert not client.is_model_ready("identity_int8")
    client.load_model("identity_int8")
    assert client.is_model_ready("identity_int8")
    stats = client.get_inference_statistics("identity_int32", as_json=True)
    assert stats["model_stats"][0]["name"] == "identity_int32", stats
    checks += 3

    print(f"tritonclient.grpc: all {checks} checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
