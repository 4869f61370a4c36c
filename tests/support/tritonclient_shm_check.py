"""Run by tests/serve_shm_clients.test.ts: Triton's own client (tritonclient.http or .grpc) and
tritonclient.utils.shared_memory against a front end of tritonffi, as a user of system shared
memory would: create regions, register them, infer identity_int32 with its input and output in
them, check the output's bytes in the region, read the status, unregister. Prints one line and
exits non-zero on any difference."""
import os
import sys

import numpy as np
import tritonclient.utils.shared_memory as shm

protocol, url = sys.argv[1], sys.argv[2]
if protocol == "http":
    import tritonclient.http as client
else:
    import tritonclient.grpc as client

c = client.InferenceServerClient(url)
c.unregister_system_shared_memory()
tag = f"tritonffi_{protocol}_{os.getpid()}"
values = (np.arange(64, dtype=np.int32) * 7919 - 12345).reshape(4, 16)
size = values.nbytes
inp = shm.create_shared_memory_region(f"{tag}_in", f"/{tag}_in", size)
out = shm.create_shared_memory_region(f"{tag}_out", f"/{tag}_out", size)
try:
    shm.set_shared_memory_region(inp, [values])
    c.register_system_shared_memory(f"{tag}_in", f"/{tag}_in", size)
    c.register_system_shared_memory(f"{tag}_out", f"/{tag}_out", size)
    status = c.get_system_shared_memory_status()
    names = sorted(
        r["name"] for r in status
    ) if protocol == "http" else sorted(status.regions.keys())
    assert names == [f"{tag}_in", f"{tag}_out"], names
    checks = 0
    for _ in range(20):
        i = client.InferInput("INPUT0", [4, 16], "INT32")
        i.set_shared_memory(f"{tag}_in", size)
        o = client.InferRequestedOutput("OUTPUT0")
        o.set_shared_memory(f"{tag}_out", size)
        result = c.infer("identity_int32", [i], outputs=[o])
        got = shm.get_contents_as_numpy(out, np.int32, [4, 16])
        assert np.array_equal(got, values), (got, values)
        described = result.get_output("OUTPUT0")
        shape = described["shape"] if protocol == "http" else list(described.shape)
        assert list(shape) == [4, 16], shape
        shm.set_shared_memory_region(out, [np.zeros_like(values)])
        checks += 1
    # A part past the region: refused, naming it.
    i = client.InferInput("INPUT0", [4, 16], "INT32")
    i.set_shared_memory(f"{tag}_in", size, offset=8)
    try:
        c.infer("identity_int32", [i])
        raise AssertionError("a part past the region was accepted")
    except client.InferenceServerException as e:
        assert "Invalid offset + byte size for shared memory region" in str(e), str(e)
    c.unregister_system_shared_memory(f"{tag}_in")
    c.unregister_system_shared_memory()
    status = c.get_system_shared_memory_status()
    assert len(status if protocol == "http" else status.regions) == 0, status
    print(f"tritonclient.{protocol} shared memory: {checks} inferences exact, bounds refused")
finally:
    shm.destroy_shared_memory_region(inp)
    shm.destroy_shared_memory_region(out)
