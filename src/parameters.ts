/**
 * `TRITONSERVER_Parameter` arrays for one C call (load parameters, repository name mappings,
 * metric labels): built together, passed as `const TRITONSERVER_Parameter**`, deleted together.
 *
 * @module
 */
import { ParameterType, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";

const encoder = new TextEncoder();

/**
 * Owns the `TRITONSERVER_Parameter` objects it creates until {@link ParameterList.dispose}, which
 * deletes each exactly once (`TRITONSERVER_ParameterDelete`). BYTES parameters point into JS
 * memory (Triton keeps a shallow copy), so the list also holds those arrays until disposed.
 */
export class ParameterList implements Disposable {
  readonly #lib: TritonLibrary;
  readonly #params: Ptr[] = [];
  readonly #keep: Uint8Array[] = [];

  constructor(lib: TritonLibrary) {
    this.#lib = lib;
  }

  /** Number of parameters. */
  get length(): number {
    return this.#params.length;
  }

  /** Adds a STRING parameter (`TRITONSERVER_ParameterNew`, which copies the value). */
  string(name: string, value: string): this {
    const { api, ffi } = this.#lib;
    const text = encoder.encode(value + "\0");
    return this.#add(
      name,
      api.TRITONSERVER_ParameterNew(name, ParameterType.STRING, ffi.addressOf(text)),
    );
  }

  /** Adds a BYTES parameter (`TRITONSERVER_ParameterBytesNew`) over `data`, which is copied
   * once here so later changes by the caller cannot reach Triton. */
  bytes(name: string, data: Uint8Array): this {
    const { api, ffi } = this.#lib;
    const copy = new Uint8Array(Math.max(data.byteLength, 1));
    copy.set(data);
    this.#keep.push(copy);
    return this.#add(
      name,
      api.TRITONSERVER_ParameterBytesNew(name, ffi.addressOf(copy), BigInt(data.byteLength)),
    );
  }

  #add(name: string, param: Ptr): this {
    if (this.#lib.ffi.isNull(param)) {
      throw new TritonError("INTERNAL", `Triton could not create parameter '${name}'`);
    }
    this.#params.push(param);
    return this;
  }

  /** The `const TRITONSERVER_Parameter**` array to pass (valid until disposed). */
  array(): BigUint64Array {
    const { ffi } = this.#lib;
    return BigUint64Array.from(this.#params, (p) => BigInt(ffi.address(p)));
  }

  /** Deletes every parameter (`TRITONSERVER_ParameterDelete`). Safe to call twice. */
  dispose(): void {
    const { api } = this.#lib;
    for (const p of this.#params.splice(0)) api.TRITONSERVER_ParameterDelete(p);
    this.#keep.length = 0;
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
