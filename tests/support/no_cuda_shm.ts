/**
 * Run by serve_cuda_shared_memory.test.ts in a child process with TRITONFFI_CUDART=none: what a
 * front end with shared memory answers a CUDA registration when no CUDA runtime loads (through
 * the HTTP handler, without listening). Prints one JSON line.
 *
 * @module
 */
import process from "node:process";
import { kserveHandler, SharedMemoryRegions } from "../../serve.ts";
import { startServer } from "./env.ts";

const server = await startServer();
const regions = new SharedMemoryRegions(server);
const handler = kserveHandler(server, { sharedMemory: regions });
const url = "http://localhost/v2";
const r = await handler(
  new Request(`${url}/cudasharedmemory/region/x/register`, {
    method: "POST",
    body: JSON.stringify({ raw_handle: { b64: "" }, device_id: 0, byte_size: 8 }),
  }),
);
const register = `${r.status === 400 ? "INVALID_ARG" : r.status}: ${
  ((await r.json()) as { error: string }).error
}`;
const status = await (await handler(new Request(`${url}/cudasharedmemory/status`))).json();
const meta = await (await handler(new Request(url))).json() as { extensions: string[] };
regions.close();
await server.stop();
console.log(
  JSON.stringify({ register, status, extensions: meta.extensions.includes("cuda_shared_memory") }),
);
process.exit(0);
