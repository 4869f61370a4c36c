"""Run by tests/serve_cuda_shm_clients.test.ts: Triton's own client (tritonclient.http or .grpc)
and tritonclient.utils.cuda_shared_memory against a front end of tritonffi, as a user of CUDA
shared memory would: create GPU regions, register their IPC handles, infer identity_int32 with its
input and output in them, check the output's bytes in the region, read the status, unregister.
Needs a GPU and cuda-python. Prints one line and exits non-zero on any difference."""
import os
import sys

import numpy as np
import tritonclient.utils.cuda_shared_memory as cudashm

protocol, url = sys.argv[1], sys.argv[2]
if protocol == "http":
    import tritonclient.http as client
else:
    import tritonclient.grpc as client

c = client.InferenceServerClient(url)
c.unregister_cuda_shared_memory()
tag = f"tritonffi_cuda_{protocol}_{os.getpid()}"
values = (np.arange(64, dtype=np.int32) * 7919 - 12345).reshape(4, 16)
size = values.nbytes
inp = cudashm.create_shared_memory_region(f"{tag}_in", size, 0)
out = cudashm.create_shared_memory_region(f"{tag}_out", size, 0)
try:
    cudashm.set_shared_memory_region(inp, [values])
    c.register_cuda_shared_memory(f"{tag}_in", cudashm.get_raw_handle(inp), 0, size)
    c.register_cuda_shared_memory(f"{tag}_out", cudashm.get_raw_handle(out), 0, size)
    status = c.get_cuda_shared_memory_status()
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
        c.infer("identity_int32", [i], outputs=[o])
        got = cudashm.get_contents_as_numpy(out, np.int32, [4, 16])
        assert np.array_equal(got, values), (got, values)
        cudashm.set_shared_memory_region(out, [np.zeros_like(values)])
        checks += 1
    # A part past the region: refused, naming it.
    i = client.InferInput("INPUT0", [4, 16], "INT32")
    i.set_shared_memory(f"{tag}_in", size, offset=8)
    try:
        c.infer("identity_int32", [i])
        raise AssertionError("a part past the region was accepted")
    except client.InferenceServerException as e:
        assert "Invalid offset + byte size for shared memory region" in str(e), str(e)
    c.unregister_cuda_shared_memory()
    status = c.get_cuda_shared_memory_status()
    assert len(status if protocol == "http" else status.regions) == 0, status
    print(f"tritonclient.{protocol} cuda shared memory: {checks} inferences exact, bounds refused")
finally:
    cudashm.destroy_shared_memory_region(inp)
    cudashm.destroy_shared_memory_region(out)
