"""error_model: every request fails with the error "error_model: this model always fails".

The Python backend reports it with code INTERNAL. The fake core imitates this model by name.
"""

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [
            pb_utils.InferenceResponse(
                error=pb_utils.TritonError("error_model: this model always fails")
            )
            for _ in requests
        ]
