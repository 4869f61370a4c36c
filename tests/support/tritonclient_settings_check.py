"""Run by tests/serve_settings_clients.test.ts: Triton's own client (tritonclient.http or .grpc)
reads and changes the log and trace settings of a front end of tritonffi, as an operator would:
get, update, get again, per model and global, a setting cleared with None, a bad value refused.
Then it makes three inferences of identity_int32, whose trace settings (rate 1, count 2) trace two
of them; the test reads the trace file after. Prints one line and exits non-zero on any difference.
"""
import sys

import numpy as np

protocol, url, trace_file = sys.argv[1], sys.argv[2], sys.argv[3]
if protocol == "http":
    import tritonclient.http as client
else:
    import tritonclient.grpc as client

c = client.InferenceServerClient(url)


def log_values(settings):
    """The log settings as plain values, whichever client answered."""
    if protocol == "http":
        return settings
    out = {}
    for key, value in settings.settings.items():
        out[key] = getattr(value, value.WhichOneof("parameter_choice"))
    return out


def trace_values(settings):
    """The trace settings as plain values: each a list of strings, whichever client answered."""
    if protocol == "http":
        return {k: v if isinstance(v, list) else [v] for k, v in settings.items()}
    return {k: list(v.value) for k, v in settings.settings.items()}


first = log_values(c.get_log_settings())
assert first["log_file"] == "", first
assert first["log_verbose_level"] == 0, first
assert first["log_format"] == "default", first
updated = log_values(c.update_log_settings({"log_verbose_level": 1, "log_format": "ISO8601"}))
assert updated["log_verbose_level"] == 1, updated
assert updated["log_format"] == "ISO8601", updated
assert log_values(c.get_log_settings()) == updated
back = log_values(c.update_log_settings({"log_verbose_level": 0, "log_format": "default"}))
assert back == first, (back, first)
try:
    c.update_log_settings({"log_format": "fancy"})
    raise AssertionError("a bad log_format was accepted")
except client.InferenceServerException as e:
    assert "log_format" in str(e), str(e)

trace = trace_values(c.get_trace_settings())
assert trace["trace_level"] == ["OFF"], trace
assert trace["trace_rate"] == ["1000"], trace
assert trace["trace_file"] == [trace_file], trace
# The global rate, then the model's own level and count.
assert trace_values(c.update_trace_settings(settings={"trace_rate": "1"}))["trace_rate"] == ["1"]
model = trace_values(
    c.update_trace_settings(
        model_name="identity_int32",
        settings={"trace_level": ["TIMESTAMPS"], "trace_count": "2"},
    )
)
assert model["trace_level"] == ["TIMESTAMPS"], model
assert model["trace_count"] == ["2"], model
assert model["trace_rate"] == ["1"], model
assert trace_values(c.get_trace_settings(model_name="identity_int32")) == model
assert trace_values(c.get_trace_settings())["trace_level"] == ["OFF"]

values = np.arange(16, dtype=np.int32).reshape(1, 16)
for n in range(3):
    i = client.InferInput("INPUT0", [1, 16], "INT32")
    i.set_data_from_numpy(values + n)
    result = c.infer("identity_int32", [i])
    assert np.array_equal(result.as_numpy("OUTPUT0"), values + n)

# The model's settings cleared: it follows the global ones again.
cleared = trace_values(
    c.update_trace_settings(
        model_name="identity_int32", settings={"trace_level": None, "trace_count": None}
    )
)
assert cleared == trace_values(c.get_trace_settings()), cleared
assert cleared["trace_level"] == ["OFF"], cleared
try:
    c.update_trace_settings(settings={"trace_rate": "fast"})
    raise AssertionError("a bad trace_rate was accepted")
except client.InferenceServerException as e:
    assert "trace_rate" in str(e), str(e)
c.update_trace_settings(settings={"trace_rate": None})
print(f"tritonclient.{protocol} settings: log and trace round trips, 3 inferences")
