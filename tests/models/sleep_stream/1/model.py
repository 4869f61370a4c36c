"""sleep_stream: a decoupled model with `async def execute`.

For each request: COUNT responses, each after sleeping DELAY_MS milliseconds, with OUT = the
response's index and the response parameters {"index": i, "last": i == COUNT - 1,
"source": "sleep_stream"}; then the FINAL flag alone. It checks for cancellation before each response and
then ends the stream with a CANCELLED error. Requests run concurrently (one asyncio task each).

The fake core in tests/fake_core imitates this model by name.
"""

import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def execute(self, requests):
        await asyncio.gather(*(self._stream(request) for request in requests))
        return None

    async def _stream(self, request):
        sender = request.get_response_sender()
        count = int(pb_utils.get_input_tensor_by_name(request, "COUNT").as_numpy()[0])
        delay = int(pb_utils.get_input_tensor_by_name(request, "DELAY_MS").as_numpy()[0])
        for i in range(count):
            await asyncio.sleep(delay / 1000.0)
            if request.is_cancelled():
                error = pb_utils.TritonError("request cancelled", pb_utils.TritonError.CANCELLED)
                sender.send(
                    pb_utils.InferenceResponse(error=error),
                    flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL,
                )
                return
            out = pb_utils.Tensor("OUT", np.array([i], dtype=np.int32))
            parameters = {"index": i, "last": i == count - 1, "source": "sleep_stream"}
            sender.send(pb_utils.InferenceResponse(output_tensors=[out], parameters=parameters))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
