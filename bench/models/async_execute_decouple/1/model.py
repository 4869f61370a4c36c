"""A decoupled Python model with `async def execute`: each request of a batch is answered by its
own coroutine (all of them at once, with asyncio.gather), one response carrying OUT = IN and the
FINAL flag. The shape of the model perf_analyzer's streaming benchmark drives
(bench/README.md, "gRPC streaming with perf_analyzer")."""

import asyncio

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def execute(self, requests):
        await asyncio.gather(*(self._answer(request) for request in requests))
        return None

    async def _answer(self, request):
        sender = request.get_response_sender()
        data = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
        await asyncio.sleep(0)
        sender.send(
            pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUT", data)]),
            flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL,
        )
