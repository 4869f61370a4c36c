/**
 * Reading `TRITONSERVER_Message` objects: Triton's JSON answers (metadata, configuration,
 * statistics, the repository index).
 *
 * @module
 */
import type { Ptr, TritonLibrary } from "../ffi/mod.ts";
import { check, discard, TritonError } from "./errors.ts";

const decoder = new TextDecoder();

/**
 * Calls `produce` with an out-parameter for a `TRITONSERVER_Message*`, then serializes the message
 * (`TRITONSERVER_MessageSerializeToJson`), deletes it (`TRITONSERVER_MessageDelete`) on every
 * path, and returns the parsed JSON.
 * @param produce makes the C call that fills `out[0]` and returns its `TRITONSERVER_Error*`.
 * @throws {TritonError} the error `produce` returned (a message is then never read), or
 *   INTERNAL when Triton's JSON does not parse.
 */
export function readJsonMessage(
  lib: TritonLibrary,
  produce: (out: BigUint64Array) => Ptr,
): unknown {
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  const err = produce(out);
  if (!ffi.isNull(err)) {
    // A failing call should leave no message behind; delete one if it did.
    if (out[0] !== 0n) discard(lib, api.TRITONSERVER_MessageDelete(ffi.fromAddress(out[0])));
    check(lib, err);
  }
  if (out[0] === 0n) throw new TritonError("INTERNAL", "Triton returned no message");
  const message = ffi.fromAddress(out[0]);
  let text: string;
  try {
    const base = new BigUint64Array(1);
    const size = new BigUint64Array(1);
    check(lib, api.TRITONSERVER_MessageSerializeToJson(message, base, size));
    text = decoder.decode(
      new Uint8Array(ffi.view(ffi.fromAddress(base[0]), Number(size[0]))),
    );
  } finally {
    discard(lib, api.TRITONSERVER_MessageDelete(message));
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TritonError("INTERNAL", `Triton returned JSON that does not parse: ${text}`, {
      cause: e,
    });
  }
}
