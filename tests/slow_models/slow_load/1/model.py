"""slow_load: an identity model (INT32 INPUT0 -> OUTPUT0) that is slow to load and to unload.

initialize() sleeps the config parameter initialize_delay_ms, finalize() sleeps
finalize_delay_ms: Triton's load (TRITONSERVER_ServerNew, TRITONSERVER_ServerLoadModel) and its
stop (TRITONSERVER_ServerStop) wait that long, which the tests use to see that such calls do not
hold up the event loop.

The fake core in tests/fake_core imitates these two parameters for any model.
"""

import json
import time

import triton_python_backend_utils as pb_utils


def _delay_seconds(config, key):
    return int(config["parameters"][key]["string_value"]) / 1000.0


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self._finalize_s = _delay_seconds(config, "finalize_delay_ms")
        time.sleep(_delay_seconds(config, "initialize_delay_ms"))

    def execute(self, requests):
        responses = []
        for request in requests:
            data = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            out = pb_utils.Tensor("OUTPUT0", data)
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses

    def finalize(self):
        time.sleep(self._finalize_s)
