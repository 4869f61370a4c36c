/**
 * ModelInferRequest messages the gRPC tests send, as plain objects (protobufjs's form of
 * `inference.ModelInferRequest`).
 *
 * @module
 */

/** A message as protobufjs takes it. */
export type Msg = Record<string, unknown>;

/** `values` as the bytes of an INT32 tensor (raw contents). */
export const int32s = (values: number[]): Uint8Array =>
  new Uint8Array(new Int32Array(values).buffer);

/** The repeat_int32 request for `values`, each after `delayMs`, with `extra` fields (an id…). */
export function repeatRequest(values: number[], delayMs: number, extra: Msg = {}): Msg {
  return {
    model_name: "repeat_int32",
    inputs: [
      { name: "IN", datatype: "INT32", shape: [values.length] },
      { name: "DELAY", datatype: "UINT32", shape: [values.length] },
      { name: "WAIT", datatype: "UINT32", shape: [1] },
    ],
    raw_input_contents: [
      int32s(values),
      new Uint8Array(new Uint32Array(values.map(() => delayMs)).buffer),
      new Uint8Array(4),
    ],
    ...extra,
  };
}
