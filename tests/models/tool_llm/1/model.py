"""tool_llm: a decoupled model with `async def execute` that says the last message of a
conversation again, for the OpenAI front end's tool calls.

Of `PROMPT` (BYTES [1]) it generates the bytes between the last b"<|end|>" and the last b"|>"
before it (from the start where there is none; the whole prompt where there is no b"<|end|>"):
its chat template (tokenizer_config.json, beside this folder) writes each message as
`<|role|>content<|end|>`, so that is the last message's content, and a user message that is a tool
call in some format comes back as that tool call, a tool's result as text. The text goes out in
pieces of 4 bytes (a UTF-8 character may be split between two), one `TEXT` (BYTES [1]) per
response, then the FINAL flag alone. Before each piece it checks for cancellation and then ends
the stream with a CANCELLED error. Requests run concurrently (one asyncio task each).

The fake core in tests/fake_core imitates this model by name (models_tool.c).
"""

import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils

NAME = "tool_llm"
FINAL = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
PIECE = 4


def last_message(prompt):
    """The bytes of `prompt` the model says again."""
    end = prompt.rfind(b"<|end|>")
    if end < 0:
        return prompt
    start = prompt.rfind(b"|>", 0, end)
    return prompt[start + 2 if start >= 0 else 0 : end]


class TritonPythonModel:
    async def execute(self, requests):
        await asyncio.gather(*(self._stream(request) for request in requests))
        return None

    async def _stream(self, request):
        sender = request.get_response_sender()
        try:
            prompt = pb_utils.get_input_tensor_by_name(request, "PROMPT")
            if prompt is None:
                error = pb_utils.TritonError(
                    f"{NAME}: missing input 'PROMPT'", pb_utils.TritonError.INVALID_ARG
                )
                sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)
                return
            text = last_message(prompt.as_numpy()[0])
            for at in range(0, len(text), PIECE):
                await asyncio.sleep(0)
                if request.is_cancelled():
                    error = pb_utils.TritonError(
                        "request cancelled", pb_utils.TritonError.CANCELLED
                    )
                    sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)
                    return
                piece = np.array([text[at : at + PIECE]], dtype=np.object_)
                out = pb_utils.Tensor("TEXT", piece)
                sender.send(pb_utils.InferenceResponse(output_tensors=[out]))
            sender.send(flags=FINAL)
        except Exception as e:  # a bug here: end the stream rather than leave it open
            error = pb_utils.TritonError(f"{NAME}: {e!r}", pb_utils.TritonError.INTERNAL)
            sender.send(pb_utils.InferenceResponse(error=error), flags=FINAL)
