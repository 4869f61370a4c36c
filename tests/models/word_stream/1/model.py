"""word_stream: a custom decoupled word echo model with `async def execute`, for a user-declared
mapping.

The words of `PROMPT` (split on runs of ASCII whitespace) come back in order, one per response,
each as `WORD` = " " + word (BYTES [1]), at most `max_words` of them, then the FINAL flag alone. It
always streams. Request parameters:
- `max_words`: an integer >= 0 (an integral number or a string of digits), default 16;
- `delay_ms`: an integer >= 0, default 0: sleeps that long before each word;
- `response_format`: a string; when given, the model sends it as the WORD of its one response
  instead of echoing the prompt (so a test sees it arrive), then the FINAL flag alone.
Other request parameters are ignored.

Before each response it sleeps delay_ms, then checks for cancellation and then ends the stream
with a CANCELLED error. A bad parameter ends it with an INVALID_ARG error that names it. Requests
run concurrently (one asyncio task each).

The fake core in tests/fake_core imitates this model by name.
"""

import asyncio
import json
import re

import numpy as np
import triton_python_backend_utils as pb_utils

NAME = "word_stream"
FINAL = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
INTEGER = re.compile(r"-?[0-9]+")


class BadRequest(Exception):
    pass


def integer(params, key, default, least):
    """params[key] as an int >= least; default when absent."""
    value = params.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and INTEGER.fullmatch(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{NAME}: {key} must be an integer")
    if value < least:
        raise BadRequest(f"{NAME}: {key} must be at least {least}")
    return value


def words_to_send(request):
    """The WORD values of the responses, and the delay before each in seconds."""
    params = json.loads(request.parameters())
    max_words = integer(params, "max_words", 16, 0)
    delay_ms = integer(params, "delay_ms", 0, 0)
    response_format = params.get("response_format")
    if response_format is not None:
        if not isinstance(response_format, str):
            raise BadRequest(f"{NAME}: response_format must be a string")
        return [response_format.encode("utf-8", "surrogatepass")], delay_ms / 1000.0
    prompt = pb_utils.get_input_tensor_by_name(request, "PROMPT")
    if prompt is None:
        raise BadRequest(f"{NAME}: missing input 'PROMPT'")
    prompt = prompt.as_numpy()[0]
    return [b" " + word for word in prompt.split()[:max_words]], delay_ms / 1000.0


class TritonPythonModel:
    async def execute(self, requests):
        await asyncio.gather(*(self._stream(request) for request in requests))
        return None

    async def _stream(self, request):
        sender = request.get_response_sender()
        try:
            await self._respond(request, sender)
        except BadRequest as e:
            error = pb_utils.TritonError(str(e), pb_utils.TritonError.INVALID_ARG)
            sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)
        except Exception as e:  # a bug here: end the stream rather than leave it open
            error = pb_utils.TritonError(f"{NAME}: {e!r}", pb_utils.TritonError.INTERNAL)
            sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)

    async def _respond(self, request, sender):
        words, delay = words_to_send(request)
        for word in words:
            await asyncio.sleep(delay)
            if request.is_cancelled():
                error = pb_utils.TritonError("request cancelled", pb_utils.TritonError.CANCELLED)
                sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)
                return
            out = pb_utils.Tensor("WORD", np.array([word], dtype=np.object_))
            sender.send(pb_utils.InferenceResponse(output_tensors=[out]))
        sender.send(flags=FINAL)
