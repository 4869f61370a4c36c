/**
 * The server's metrics as Prometheus text (`TRITONSERVER_ServerMetrics`,
 * `TRITONSERVER_MetricsFormatted`).
 *
 * @module
 */
import { MetricFormat, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { check, discard } from "./errors.ts";

const decoder = new TextDecoder();

/**
 * Every metric of the process's Triton (server, model and custom metrics) in Prometheus' text
 * exposition format. The `TRITONSERVER_Metrics` object is deleted on every path.
 * @throws {TritonError} UNSUPPORTED on a core built without metrics; Triton's error.
 */
export function prometheusText(lib: TritonLibrary, server: Ptr): string {
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  const err = api.TRITONSERVER_ServerMetrics(server, out);
  // Without metrics Triton answers UNSUPPORTED and leaves NULL: never format NULL.
  if (!ffi.isNull(err)) {
    if (out[0] !== 0n) discard(lib, api.TRITONSERVER_MetricsDelete(ffi.fromAddress(out[0])));
    check(lib, err);
  }
  if (out[0] === 0n) return "";
  const metrics = ffi.fromAddress(out[0]);
  try {
    const base = new BigUint64Array(1);
    const size = new BigUint64Array(1);
    check(lib, api.TRITONSERVER_MetricsFormatted(metrics, MetricFormat.PROMETHEUS, base, size));
    return decoder.decode(new Uint8Array(ffi.view(ffi.fromAddress(base[0]), Number(size[0]))));
  } finally {
    discard(lib, api.TRITONSERVER_MetricsDelete(metrics));
  }
}
