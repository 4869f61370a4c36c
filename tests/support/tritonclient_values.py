"""Values of every data type, one batch of three elements each (extremes included), for the
tritonclient checks to send through the identity models (tests/models/identity_<type>)."""

import numpy as np

IDENTITY_VALUES = {
    "BOOL": np.array([[True, False, True]]),
    "UINT8": np.array([[0, 255, 7]], dtype=np.uint8),
    "UINT16": np.array([[0, 65535, 7]], dtype=np.uint16),
    "UINT32": np.array([[0, 4294967295, 7]], dtype=np.uint32),
    "UINT64": np.array([[0, 18446744073709551615, 7]], dtype=np.uint64),
    "INT8": np.array([[-128, 127, 0]], dtype=np.int8),
    "INT16": np.array([[-32768, 32767, 0]], dtype=np.int16),
    "INT32": np.array([[-2147483648, 2147483647, 0]], dtype=np.int32),
    "INT64": np.array([[-9223372036854775808, 9223372036854775807, 0]], dtype=np.int64),
    "FP16": np.array([[1.0, -2.5, 65504.0]], dtype=np.float16),
    "FP32": np.array([[1.5, -0.25, 3.0e38]], dtype=np.float32),
    "FP64": np.array([[np.pi, -1e-300, 1e300]], dtype=np.float64),
    "BYTES": np.array([[b"hello", b"", "h\u00e9".encode()]], dtype=np.object_),
}
