/**
 * The classification extension, as tritonserver serves it: a requested output with the parameter
 * `classification: k` comes back, instead of its tensor, as the top `k` classes of each batch row,
 * BYTES strings `"value:index"`, or `"value:index:label"` where the model labels the output
 * (`label_filename`). Written once on plain values; the HTTP and gRPC front ends both call
 * {@link classifiedOutputs}.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import { DATA_TYPES, type NumericArray } from "../../src/dtypes.ts";
import type { InferResponse } from "../../src/response.ts";
import type { Server } from "../../src/server.ts";
import { Tensor } from "../../src/tensor.ts";
import { classOrder } from "./class_order.ts";
import { invalid } from "../common/refusals.ts";

/** The most elements one batch row of a classified output may have (tritonserver's limit). */
export const MAX_CLASSIFICATION_ELEMENTS = 1_000_000;

/** The data types tritonserver classifies: integers and FP32/FP64 (not BOOL, FP16, BF16,
 * BYTES). */
const CLASSIFIED: ReadonlySet<DataTypeName> = new Set<DataTypeName>([
  "UINT8",
  "UINT16",
  "UINT32",
  "UINT64",
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FP32",
  "FP64",
]);

const encoder = new TextEncoder();
const TEN_6 = 1_000_000n;

/**
 * `x` as C's `printf("%f", x)` writes it on glibc (`std::to_string` of a float or double): six
 * decimals of the exact binary value rounded half to even, every digit of the integer part;
 * `inf`, `-inf`, `nan`, `-nan`.
 * @param negativeNaN for a NaN, whether its sign bit is set.
 */
export function fixed6(x: number, negativeNaN = false): string {
  if (Number.isNaN(x)) return negativeNaN ? "-nan" : "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  // a = mantissa · 2^exponent exactly, from the bits of the double.
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, a);
  const high = bits.getUint32(0);
  const biased = high >>> 20;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(bits.getUint32(4));
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  let micros: bigint; // round(a · 10^6), half to even
  if (exponent >= 0) micros = (mantissa << BigInt(exponent)) * TEN_6;
  else {
    const shift = BigInt(-exponent);
    const scaled = mantissa * TEN_6;
    micros = scaled >> shift;
    const rest = scaled - (micros << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (micros & 1n) === 1n)) micros++;
  }
  const digits = micros.toString().padStart(7, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** Element `i` of `data` as tritonserver prints it. */
function valueText(dtype: DataTypeName, data: NumericArray, i: number): string {
  const value = data[i];
  if (typeof value === "bigint") return value.toString();
  if (dtype !== "FP32" && dtype !== "FP64") return String(value);
  if (!Number.isNaN(value)) return fixed6(value);
  // A NaN's sign, from its bits (little-endian: the sign is in the element's last byte).
  const size = data.BYTES_PER_ELEMENT;
  const last = new Uint8Array(data.buffer, data.byteOffset + i * size + size - 1, 1)[0];
  return fixed6(value, (last & 0x80) !== 0);
}

/**
 * The classification of one output tensor, as tritonserver makes it: for each batch row (the
 * whole tensor where the model does not batch, or the batch is empty) its `k` largest elements,
 * largest first (ties as tritonserver's sort leaves them), as `"value:index[:label]"` — floats
 * with six decimals, integers in full, `index` within the row.
 * @param tensor the output, in host memory.
 * @param k classes per row, at least 1 (fewer where a row has fewer elements).
 * @param batched whether the model batches (`max_batch_size` > 0): the first dimension is then
 *   the batch.
 * @param label the label of a class (an index within a row), if any.
 * @returns a BYTES tensor of shape `[batch, min(k, row elements)]`, or `[min(k, elements)]`.
 * @throws {TritonError} INVALID_ARG for a data type tritonserver does not classify ("class result
 *   not available for output due to unsupported type 'BYTES'"), or a row of more than
 *   {@link MAX_CLASSIFICATION_ELEMENTS} elements.
 */
export function classifyTensor(
  tensor: Tensor,
  k: number,
  batched: boolean,
  label: (classIndex: number) => string | undefined,
): Tensor<"BYTES"> {
  const { dtype, shape } = tensor;
  const unsupported = () =>
    invalid(`class result not available for output due to unsupported type '${dtype}'`);
  if (DATA_TYPES[dtype].byteSize === 0) unsupported();
  const batch = batched && shape.length > 0 ? shape[0] : 0;
  let rowElements = 1;
  for (let d = batch === 0 ? 0 : 1; d < shape.length; d++) rowElements *= shape[d];
  if (rowElements > MAX_CLASSIFICATION_ELEMENTS) invalid("classification output tensor too large");
  if (!CLASSIFIED.has(dtype)) unsupported();
  const data = tensor.data as NumericArray;
  const count = Math.min(k, rowElements);
  const strings: Uint8Array[] = [];
  const labels = new Map<number, string | undefined>();
  for (let row = 0; row < Math.max(1, batch); row++) {
    const start = row * rowElements;
    const values = data.subarray(start, start + rowElements);
    const order = classOrder(values);
    for (let c = 0; c < count; c++) {
      const i = order[c];
      let text = `${valueText(dtype, values, i)}:${i}`;
      if (!labels.has(i)) labels.set(i, label(i));
      const name = labels.get(i);
      if (name !== undefined) text += `:${name}`;
      strings.push(encoder.encode(text));
    }
  }
  return new Tensor("BYTES", batch > 0 ? [batch, count] : [count], strings);
}

/**
 * What a request with outputs asked for as classifications adds to its `InferRequest`: its
 * responses keep Triton's response, from which {@link classifiedOutputs} reads the labels when it
 * is encoded (`keepResponses`); nothing where no output is classified.
 * @param classes classes per row, by output name.
 */
export function labelsKept(classes: ReadonlyMap<string, number>): { keepResponses?: true } {
  return classes.size > 0 ? { keepResponses: true } : {};
}

/**
 * `response`'s outputs, those asked for as classifications replaced by them (see
 * {@link classifyTensor}); labels are read from the response, which must still hold its native
 * response.
 * @param classes classes per row, by output name (outputs not in it are left as they are).
 * @param batched whether the response's model batches; asked only where an output is classified.
 * @throws {TritonError} as {@link classifyTensor}; UNAVAILABLE once the response is released.
 */
export function classifiedOutputs(
  response: InferResponse,
  classes: ReadonlyMap<string, number>,
  batched: () => boolean,
): Readonly<Record<string, Tensor>> {
  const outputs = response.outputs;
  if (classes.size === 0) return outputs;
  let batches: boolean | undefined;
  const result: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(outputs)) {
    const k = classes.get(name);
    if (k === undefined) {
      result[name] = tensor;
      continue;
    }
    const host = tensor.memoryType === "GPU" ? tensor.toHost() : tensor;
    result[name] = classifyTensor(
      host,
      k,
      batches ??= batched(),
      (i) => response.classificationLabel(name, i),
    );
  }
  return result;
}

/** Whether the model that answered `response` batches (`TRITONSERVER_ServerModelBatchProperties`
 * of the version that ran has `TRITONSERVER_BATCH_FIRST_DIM`), as tritonserver asks it.
 * @throws {TritonError} Triton's error where that version is no longer loaded. */
export function respondingModelBatches(server: Server, response: InferResponse): boolean {
  const { name, version } = response.model;
  return server.model(name, version).batchProperties().firstDim;
}
