"""tiny_embed: an embedding model (not decoupled, no batching).

For each of the N strings of `TEXT` (BYTES [N]), with UTF-8 bytes b_0 .. b_{k-1}:
h = (sum over i of b_i * (i + 1)) mod 1_000_003, and the embedding's component j (0 .. 7) is
float32((h * (j + 1)) mod 2001 - 1000) / float32(1000), divided in float32 (what
`Math.fround(x / 1000)` gives in JavaScript and `(float)x / 1000.0f` in C). Outputs:
`EMBEDDING` FP32 [N, 8] and `NUM_TOKENS` INT32 [N], each string's word count (runs of ASCII
whitespace separate words).

The fake core in tests/fake_core imitates this model by name.
"""

import numpy as np
import triton_python_backend_utils as pb_utils

MODULUS = 1_000_003


def embedding(text):
    h = 0
    for i, b in enumerate(text):
        h = (h + b * (i + 1)) % MODULUS
    numerators = np.array([(h * (j + 1)) % 2001 - 1000 for j in range(8)], dtype=np.float32)
    return numerators / np.float32(1000)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            vectors = np.zeros((len(texts), 8), dtype=np.float32)
            for n, text in enumerate(texts):
                vectors[n] = embedding(text)
            counts = np.array([len(text.split()) for text in texts], dtype=np.int32)
            responses.append(
                pb_utils.InferenceResponse(
                    output_tensors=[
                        pb_utils.Tensor("EMBEDDING", vectors),
                        pb_utils.Tensor("NUM_TOKENS", counts),
                    ]
                )
            )
        return responses
