"""tiny_trtllm: a word echo model following TensorRT-LLM's convention, decoupled, with
`async def execute`.

Its inputs and outputs carry the names, datatypes and dims of tensorrtllm_backend's ensemble and
tensorrt_llm_bls models, batch dimension included (each input is [1, ...]: one prompt per request),
and it answers as tensorrt_llm_bls does. The words of the prompt (`text_input` split on runs of
ASCII whitespace) are its tokens; it generates them again, in order, each as the text " " + word,
at most `max_tokens` of them (an INT32 >= 1, required). A word equal to one of the `stop_words`
(compared without the leading space) ends the generation before it. `temperature`, `top_p` and
`seed` are accepted and ignored (it is deterministic); the request parameter `delay_ms` (an integer
>= 0, default 0) sleeps that long before each word. No counts, no finish reason.

Streaming (`stream` true): one response per word, then the FINAL flag alone, as tensorrt_llm_bls
sends them. Not streaming: one response with the whole text, then the FINAL flag alone; the text
starts with the prompt when `exclude_input_in_output` is false (default: the config parameter
exclude_input_in_output, as the tensorrt_llm model's). `text_output` is BYTES [1, 1].

Before each word it sleeps delay_ms, then checks for cancellation and then ends the stream with a
CANCELLED error. Errors come as tensorrt_llm_bls sends them: a response with the error, then the
FINAL flag alone; bad input (a bad value, or a missing `text_input` or `max_tokens`, which the core
lets through when optional inputs make up the count) is an INVALID_ARG error that names it. Requests run concurrently (one asyncio task each).

The fake core in tests/fake_core imitates this model by name.
"""

import asyncio
import json
import re

import numpy as np
import triton_python_backend_utils as pb_utils

NAME = "tiny_trtllm"
FINAL = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
INTEGER = re.compile(r"-?[0-9]+")


class BadRequest(Exception):
    pass


def integer(params, key, default, least):
    """params[key] as an int >= least; default when absent or null."""
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


def required(request, name):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    if tensor is None:
        raise BadRequest(f"{NAME}: missing input '{name}'")
    return tensor


def plan(words, max_tokens, stops):
    """The generated texts."""
    out = []
    for word in words:
        if len(out) == max_tokens or word in stops:
            break
        out.append(b" " + word)
    return out


class Job:
    """One request's inputs, read and checked."""

    def __init__(self, request, exclude_default):
        text = required(request, "text_input").as_numpy()
        if text.shape[0] != 1:
            raise BadRequest(f"{NAME}: one prompt per request (batch size 1)")
        self.prompt = text[0][0]
        self.stream = self.flag(request, "stream", False)
        self.prepend = not self.flag(request, "exclude_input_in_output", exclude_default)
        max_tokens = int(required(request, "max_tokens").as_numpy()[0][0])
        if max_tokens < 1:
            raise BadRequest(f"{NAME}: max_tokens must be at least 1")
        stop_words = pb_utils.get_input_tensor_by_name(request, "stop_words")
        stops = [] if stop_words is None else list(stop_words.as_numpy()[0])
        self.delay_ms = integer(json.loads(request.parameters()), "delay_ms", 0, 0)
        self.texts = plan(self.prompt.split(), max_tokens, stops)

    @staticmethod
    def flag(request, name, default):
        tensor = pb_utils.get_input_tensor_by_name(request, name)
        return default if tensor is None else bool(tensor.as_numpy()[0][0])


def text_response(text):
    tensor = pb_utils.Tensor("text_output", np.array([[text]], dtype=np.object_))
    return pb_utils.InferenceResponse(output_tensors=[tensor])


class TritonPythonModel:
    def initialize(self, args):
        parameters = json.loads(args["model_config"]).get("parameters", {})
        value = parameters.get("exclude_input_in_output", {}).get("string_value", "false")
        self.exclude_default = value.lower() == "true"

    async def execute(self, requests):
        await asyncio.gather(*(self._generate(request) for request in requests))
        return None

    async def _generate(self, request):
        sender = request.get_response_sender()
        try:
            await self._respond(request, sender)
        except BadRequest as e:
            self._fail(sender, str(e), pb_utils.TritonError.INVALID_ARG)
        except Exception as e:  # a bug here: end the stream rather than leave it open
            self._fail(sender, f"{NAME}: {e!r}", pb_utils.TritonError.INTERNAL)

    async def _respond(self, request, sender):
        job = Job(request, self.exclude_default)
        for text in job.texts:
            await asyncio.sleep(job.delay_ms / 1000.0)
            if request.is_cancelled():
                self._fail(sender, "request cancelled", pb_utils.TritonError.CANCELLED)
                return
            if job.stream:
                sender.send(text_response(text))
        if not job.stream:
            sender.send(text_response((job.prompt if job.prepend else b"") + b"".join(job.texts)))
        sender.send(flags=FINAL)

    @staticmethod
    def _fail(sender, message, code):
        error = pb_utils.TritonError(message, code)
        sender.send(pb_utils.InferenceResponse(error=error))
        sender.send(flags=FINAL)
