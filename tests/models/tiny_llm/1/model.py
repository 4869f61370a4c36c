"""tiny_llm: a word echo model following vLLM's convention, decoupled, with `async def execute`.

Its inputs and outputs carry the names, datatypes and dims of Triton's vllm_backend, and it answers
as that backend does. The words of the prompt (`text_input` split on runs of ASCII whitespace) are
its tokens; it generates them again, in order, each as the text " " + word, at most `max_tokens` of
them. A word equal to one of the `stop` strings (compared without the leading space) ends the
generation before it. Finish reason: "length" when max_tokens cut it, otherwise "stop" (an empty
prompt generates nothing and finishes with "stop").

Sampling parameters come from the `sampling_parameters` input (a JSON object) or, without it, from
the request parameters, as vLLM's backend reads them:
- `max_tokens`: an integer >= 1 (an integral number or a string of digits), default 16;
- `stop`: a string or a list of strings;
- `delay_ms`: an integer >= 0, default 0: sleeps that long before each word;
- `seed`, `temperature`, `top_p` and any other key: accepted and ignored (it is deterministic).

Streaming (`stream` true): one response per word, the last one carrying the FINAL flag, as vLLM's
backend sends them (a request that generates nothing gets one response with an empty text). The
prompt is never repeated; `exclude_input_in_output` false is an error, as in vLLM's backend. Not
streaming: one response with the FINAL flag and the whole text, which starts with the prompt unless
`exclude_input_in_output` is true.

Outputs, each only when asked for (and requested):
- `text_output` BYTES [1]: the text of this response;
- `finish_reason` BYTES [1] (`return_finish_reason`): "stop" or "length" on the last response,
  "None" on a streaming response before it, as vLLM's backend sends it;
- `num_input_tokens` UINT32 (`return_num_input_tokens`): the prompt's word count, a tensor of
  shape [] (no dimension: vLLM's backend sends np.asarray(count), though its config says [1]);
- `num_output_tokens` UINT32 [1] (`return_num_output_tokens`): the words this response carries
  (all of them when not streaming).

Before each word it sleeps delay_ms, then checks for cancellation and then ends the stream with a
CANCELLED error. Bad parameters, and a missing `text_input` (which the core lets through when
optional inputs make up the count), end it with an INVALID_ARG error that names them. Requests run
concurrently (one asyncio task each).

The fake core in tests/fake_core imitates this model by name.
"""

import asyncio
import json
import re

import numpy as np
import triton_python_backend_utils as pb_utils

NAME = "tiny_llm"
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


def strings(params, key):
    """params[key], a string or a list of strings, as a list of UTF-8 byte strings."""
    value = params.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise BadRequest(f"{NAME}: {key} must be a string or a list of strings")
    return [s.encode("utf-8", "surrogatepass") for s in value]


def required(request, name):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    if tensor is None:
        raise BadRequest(f"{NAME}: missing input '{name}'")
    return tensor


def flag(request, name, default):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    return default if tensor is None else bool(tensor.as_numpy()[0])


def plan(words, max_tokens, stops):
    """The generated texts and the finish reason."""
    out = []
    for word in words:
        if len(out) == max_tokens:
            return out, "length"
        if word in stops:
            return out, "stop"
        out.append(b" " + word)
    return out, "stop"


class Job:
    """One request's inputs, read and checked."""

    def __init__(self, request):
        self.prompt = required(request, "text_input").as_numpy()[0]
        self.stream = flag(request, "stream", False)
        exclude = pb_utils.get_input_tensor_by_name(request, "exclude_input_in_output")
        if exclude is not None:
            self.prepend = not bool(exclude.as_numpy()[0])
        else:
            self.prepend = not self.stream
        if self.prepend and self.stream:
            raise BadRequest(
                f"{NAME}: exclude_input_in_output false is not allowed when streaming"
            )
        self.want_finish = flag(request, "return_finish_reason", False)
        self.want_input_count = flag(request, "return_num_input_tokens", False)
        self.want_output_count = flag(request, "return_num_output_tokens", False)
        sampling = pb_utils.get_input_tensor_by_name(request, "sampling_parameters")
        text = sampling.as_numpy()[0] if sampling is not None else request.parameters()
        try:
            params = json.loads(text)
        except ValueError:
            params = None
        if not isinstance(params, dict):
            raise BadRequest(f"{NAME}: sampling_parameters must be a JSON object")
        self.max_tokens = integer(params, "max_tokens", 16, 1)
        self.delay_ms = integer(params, "delay_ms", 0, 0)
        self.stops = strings(params, "stop")
        self.words = self.prompt.split()

    def response(self, text, count, finish):
        tensors = [pb_utils.Tensor("text_output", np.array([text], dtype=np.object_))]
        if self.want_finish:
            reason = str(finish).encode()
            tensors.append(pb_utils.Tensor("finish_reason", np.array([reason], dtype=np.object_)))
        if self.want_input_count:
            n = np.asarray(len(self.words), dtype=np.uint32)
            tensors.append(pb_utils.Tensor("num_input_tokens", n))
        if self.want_output_count:
            n = np.array([count], dtype=np.uint32)
            tensors.append(pb_utils.Tensor("num_output_tokens", n))
        return pb_utils.InferenceResponse(output_tensors=tensors)


def error(message, code):
    return pb_utils.InferenceResponse(error=pb_utils.TritonError(message, code))


class TritonPythonModel:
    async def execute(self, requests):
        await asyncio.gather(*(self._generate(request) for request in requests))
        return None

    async def _generate(self, request):
        sender = request.get_response_sender()
        try:
            await self._respond(request, sender)
        except BadRequest as e:
            sender.send(error(str(e), pb_utils.TritonError.INVALID_ARG), flags=FINAL)
        except Exception as e:  # a bug here: end the stream rather than leave it open
            sender.send(error(f"{NAME}: {e!r}", pb_utils.TritonError.INTERNAL), flags=FINAL)

    async def _respond(self, request, sender):
        job = Job(request)
        texts, finish = plan(job.words, job.max_tokens, job.stops)
        for i, text in enumerate(texts):
            await asyncio.sleep(job.delay_ms / 1000.0)
            if request.is_cancelled():
                sender.send(error("request cancelled", pb_utils.TritonError.CANCELLED), flags=FINAL)
                return
            if job.stream:
                last = i == len(texts) - 1
                sender.send(
                    job.response(text, 1, finish if last else None), flags=FINAL if last else 0
                )
        if not job.stream:
            text = (job.prompt if job.prepend else b"") + b"".join(texts)
            sender.send(job.response(text, len(texts), finish), flags=FINAL)
        elif not texts:
            sender.send(job.response(b"", 0, finish), flags=FINAL)
