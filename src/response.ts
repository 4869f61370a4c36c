/**
 * `InferResponse`: one response of an inference, over a `TRITONSERVER_InferenceResponse` (see
 * `native_response.ts` for how long that lives).
 *
 * @module
 */
import {
  type DataTypeName,
  type ModelOf,
  type ParameterValue,
  type Ptr,
  type ResponseFields,
} from "../ffi/mod.ts";
import { errorFromPtr, TritonError } from "./errors.ts";
import type {
  DeclaredOutputName,
  OutputDataType,
  OutputDeclarations,
  OutputName,
  OutputsOf,
} from "./model_types.ts";
import type { NativeResponse } from "./native_response.ts";
import { Tensor } from "./tensor.ts";

export type { ParameterValue };

/** The fields of a response copied into JS. */
interface CopiedFields {
  readonly model: ModelOf;
  readonly id: string;
  readonly outputs: Readonly<Record<string, Tensor>>;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
}

/**
 * One response of an inference request.
 *
 * It stays readable for as long as you hold it: until `dispose()` (or `using`), until it is
 * garbage-collected, or until its server stops (`server.stop()` releases every response it
 * owns). Its fields are read from Triton on first use and kept. Host outputs are zero-copy
 * views of the buffers Triton filled, and a view you keep keeps its buffer alive even after the
 * response object itself is gone; once the response is released (disposed, or its server
 * stopped) every such view is detached (length 0), so nothing can read freed memory. `copy()`
 * gives a response that lives in JS memory only. `error` and `final` are always readable.
 *
 * @typeParam O the outputs of the model's declaration (see `tritonffi types`): with one,
 *   `output(name)` takes a declared name and types the tensor without a data type argument;
 *   `undefined` (the default) for a model without a declaration.
 */
export class InferResponse<O extends OutputDeclarations = undefined> implements Disposable {
  /** The error the response carries, if any (see `raiseOnError`;
   * `TRITONSERVER_InferenceResponseError`). */
  readonly error?: TritonError;
  /** Whether this is the request's last response (`TRITONSERVER_RESPONSE_COMPLETE_FINAL`). */
  readonly final: boolean;
  #native: NativeResponse | undefined;
  #model: { readonly name: string; readonly version: number } | undefined;
  #id: string | undefined;
  #outputs: Readonly<Record<string, Tensor>> | undefined;
  #parameters: Readonly<Record<string, ParameterValue>> | undefined;
  /** Fields the native response reader read on arrival, not yet used. */
  #read: Partial<CopiedFields> | undefined;

  /** @internal Use {@link readResponse}. With `native`, `copied` holds the fields already read
   * from it, which the getters take on first use as they would read them (so a field first used
   * after `dispose()` throws either way); without, the response's fields. */
  constructor(
    final: boolean,
    error: TritonError | undefined,
    native?: NativeResponse,
    copied?: Partial<CopiedFields>,
  ) {
    this.final = final;
    if (error) this.error = error;
    if (native) {
      this.#native = native;
      this.#read = copied;
      native.hold(this);
    } else if (copied) {
      this.#model = copied.model;
      this.#id = copied.id;
      this.#outputs = copied.outputs;
      this.#parameters = copied.parameters;
    }
  }

  /** Model that produced it (`TRITONSERVER_InferenceResponseModel`): the version is the one that
   * ran, also when the request asked for -1.
   * @throws {TritonError} UNAVAILABLE when first read after the response was released. */
  get model(): { readonly name: string; readonly version: number } {
    return (this.#model ??= this.#take("model") ?? this.#fields.model(this.#open("model")));
  }

  /** The request id it answers, `""` where none was set (`TRITONSERVER_InferenceResponseId`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was released. */
  get id(): string {
    return (this.#id ??= this.#take("id") ?? this.#fields.id(this.#open("id")));
  }

  /** Response parameters by name (`TRITONSERVER_InferenceResponseParameter`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was released;
   *   UNSUPPORTED for a parameter of a type the binding does not know. */
  get parameters(): Readonly<Record<string, ParameterValue>> {
    return (this.#parameters ??= this.#take("parameters") ??
      this.#fields.parameters(this.#open("parameters")));
  }

  /** Output tensors by name (`TRITONSERVER_InferenceResponseOutput`); none when `error` is set.
   * Host outputs are views of Triton's buffers, GPU outputs give their device address. See
   * {@link output} for one output with its data type checked and typed.
   * @throws {TritonError} UNAVAILABLE when first read after the response was released;
   *   INTERNAL for an output of an unknown data type or a size that does not fit its shape. */
  get outputs(): OutputsOf<O> {
    return this.#allOutputs() as OutputsOf<O>;
  }

  #allOutputs(): Readonly<Record<string, Tensor>> {
    if (this.#outputs) return this.#outputs;
    if (this.error) return (this.#outputs = {});
    const read = this.#take("outputs");
    if (read) return (this.#outputs = read);
    const fields = this.#fields.outputs(this.#open("outputs"));
    return (this.#outputs = this.#native!.tensors(fields));
  }

  /**
   * One output, its data type checked: `data` is then typed (`Float32Array` for `"FP32"`,
   * `Uint8Array[]` for `"BYTES"`, …) without a cast. A response of a model typed by its
   * declaration (`tritonffi types`) takes declared names only, and `output(name)` alone types the
   * tensor by the declared data type.
   * @param name the output's name.
   * @param dtype the data type the caller expects; left out, the output is returned as it is.
   * @throws {TritonError} NOT_FOUND when the response has no such output; INVALID_ARG when its
   *   data type is another; as {@link outputs}.
   * @example
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * // identity_fp32 batches: a batch of 1, 3 elements
   * const INPUT0 = { dtype: "FP32", shape: [1, 3], data: [0.5, 1, 2] } as const;
   * using response = await server.model("identity_fp32").inferOne({ inputs: { INPUT0 } });
   * const echoed: Float32Array = response.output("OUTPUT0", "FP32").data;
   * console.log(echoed); // Float32Array(3) [ 0.5, 1, 2 ]
   * ```
   */
  output<D extends DataTypeName>(name: OutputName<O>, dtype: D): Tensor<D>;
  /**
   * A declared output, typed by its declaration (a response of a model typed by `tritonffi types`).
   * @param name the output's name.
   * @throws {TritonError} NOT_FOUND when the response has no such output; as {@link outputs}.
   */
  output<N extends DeclaredOutputName<O>>(name: N): Tensor<OutputDataType<O, N>>;
  output(name: string, dtype?: DataTypeName): Tensor {
    const tensor = this.#named(name);
    if (dtype !== undefined && tensor.dtype !== dtype) {
      throw new TritonError("INVALID_ARG", `output '${name}' is ${tensor.dtype}, not ${dtype}`);
    }
    return tensor;
  }

  /**
   * The label of class `classIndex` of output `output`
   * (`TRITONSERVER_InferenceResponseOutputClassificationLabel`): line `classIndex` (from 0) of
   * the label file the model's configuration names for that output (`label_filename`);
   * `undefined` where the output has no label file, the file has no such line, or the line is
   * empty. It is read from Triton's response, which must still be held: ask `infer()` or
   * `inferOne()` with `keepResponses: true`, which keeps it until this response is disposed
   * (without it the binding releases Triton's response once the stream has moved past this one, on
   * a later macrotask, or at once when many responses are held); not on a {@link copy}.
   * @param output the output's name.
   * @param classIndex the class: an element's index within one batch row of the output.
   * @throws {TritonError} NOT_FOUND when the response has no such output; INVALID_ARG for a
   *   `classIndex` that is no integer in [0, 2^32); UNAVAILABLE once the native response is
   *   released; as {@link outputs}.
   * @example Labels of an output's two largest elements
   * ```ts
   * import { Server } from "tritonffi";
   *
   * await using server = await new Server({ modelRepository: "./models" }).start();
   * // labels_fp32 echoes its input; OUTPUT0's classes are labelled by labels.txt
   * const INPUT0 = { dtype: "FP32", shape: [1, 4], data: [0.1, 0.7, 0.05, 0.15] } as const;
   * using response = await server.model("labels_fp32").inferOne({
   *   inputs: { INPUT0 },
   *   keepResponses: true, // labels are read from Triton's response
   * });
   * const scores = response.output("OUTPUT0", "FP32").data;
   * const top = [...scores.keys()].sort((a, b) => scores[b] - scores[a]).slice(0, 2);
   * console.log(top.map((i) => response.classificationLabel("OUTPUT0", i))); // [ "dog", "fish" ]
   * ```
   */
  classificationLabel(output: string, classIndex: number): string | undefined {
    if (!Number.isInteger(classIndex) || classIndex < 0 || classIndex >= 2 ** 32) {
      throw new TritonError(
        "INVALID_ARG",
        `a class index is an integer in [0, 2^32), not ${String(classIndex)}`,
      );
    }
    this.#named(output);
    const response = this.#open("classification labels");
    const index = this.#native!.outputIndex(output)!;
    return this.#fields.classificationLabel(response, index, classIndex);
  }

  /** Output `name`.
   * @throws {TritonError} NOT_FOUND when the response has no such output; as {@link outputs}. */
  #named(name: string): Tensor {
    const tensor = this.#allOutputs()[name];
    if (tensor === undefined) {
      throw new TritonError(
        "NOT_FOUND",
        `the response has no output '${name}' (it has ${
          Object.keys(this.#allOutputs()).map((n) => `'${n}'`).join(", ") || "none"
        })`,
      );
    }
    return tensor;
  }

  /** A field the reader read on arrival, as it would be read now (throws UNAVAILABLE once
   * released, as {@link #open}). */
  #take<K extends keyof CopiedFields>(field: K): CopiedFields[K] | undefined {
    const value = this.#read?.[field];
    if (value !== undefined) this.#open(field);
    return value;
  }

  /** The native response, to read a field from.
   * @throws {TritonError} UNAVAILABLE once released. */
  #open(field: string): Ptr {
    const native = this.#native;
    const response = native?.pointer;
    if (response === undefined) {
      throw new TritonError(
        "UNAVAILABLE",
        native?.owner.closed
          ? `the response's ${field} cannot be read: its server was stopped first (read its ` +
            "fields, or copy() it, before stop())"
          : `the response's ${field} cannot be read: the response was disposed first (read its ` +
            "fields, or copy() it, before dispose())",
      );
    }
    return response;
  }

  /** The binding's response reader (only called once {@link #open} found the response live). */
  get #fields(): ResponseFields {
    return this.#native!.owner.lib.binding.responses;
  }

  /** Whether the native response has been released (always true for a copy). */
  get disposed(): boolean {
    return this.#native === undefined || this.#native.disposed;
  }

  /**
   * Releases the native response now (`TRITONSERVER_InferenceResponseDelete`, which returns its
   * output buffers to the allocator and lets go of the model). Output views are detached.
   * Idempotent; after its server stopped, there is nothing left to release.
   */
  dispose(): void {
    this.#native?.release(true);
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A copy whose fields and outputs live in JS memory (its `disposed` is true: it holds nothing
   * native); this response is left as it is.
   * @throws {TritonError} UNAVAILABLE once this response is released (its outputs are gone). */
  copy(): InferResponse<O> {
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(this.#allOutputs())) outputs[name] = t.copy();
    return new InferResponse<O>(this.final, this.error, undefined, {
      model: this.model,
      id: this.id,
      outputs,
      parameters: this.parameters,
    });
  }

  /**
   * @internal The stream moved past this response: when nothing reads Triton's buffers in place
   * (every output read is a copy, no large output), read the remaining fields and release the
   * native response — it holds the model and Triton's memory — while this object stays readable.
   * Otherwise it is left to `dispose()`, the garbage collector or the server's stop. Never throws:
   * a field that cannot be read keeps the native response.
   */
  settle(): void {
    const native = this.#native;
    if (native === undefined || native.disposed || native.viewing) return;
    try {
      this.model;
      this.id;
      this.parameters;
      this.#allOutputs();
    } catch {
      return;
    }
    if (native.viewing) return;
    for (const t of Object.values(this.#outputs!)) if (t.memoryType === "GPU") return;
    native.release();
  }

  /**
   * @internal Reads every field now, copies the host outputs into JS memory and releases the
   * native response, which this object then no longer needs (`disposed` becomes true, as for a
   * copy). Left as it is when an output is in GPU memory.
   * @throws {TritonError} as the fields' getters.
   */
  materialize(): void {
    const native = this.#native;
    if (native === undefined || native.disposed) return;
    this.model;
    this.id;
    this.parameters;
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(this.#allOutputs())) {
      if (t.memoryType === "GPU") return;
      outputs[name] = t.isView ? t.copy() : t;
    }
    this.#outputs = outputs;
    native.release();
  }

  /** @internal A response that Triton did not send, standing for the end of a request in a
   * response queue: FINAL with no outputs (a FINAL flag without a response), or the error the
   * request ended with (`stop()`, a cancel). */
  static end(model: ModelOf, id: string, error?: TritonError): InferResponse {
    return new InferResponse(true, error, undefined, { model, id, outputs: {}, parameters: {} });
  }
}

/**
 * @internal Wraps a response Triton delivered in an {@link InferResponse}, which becomes one of its
 * holders. With the native response reader, everything is read now in one call and what it
 * copied is kept; anything it left (a long name, a large or GPU output, an unknown type) is read
 * on first use, as every field is without the reader, where only the error is read now.
 * @param inJs the response is to live in JS memory only (see `InferResponse.materialize`): when
 *   the reader copied all of it, the native response is released at once and the result holds
 *   nothing native; otherwise the caller materializes it.
 */
export function readResponse(native: NativeResponse, final: boolean, inJs = false): InferResponse {
  const lib = native.owner.lib;
  const fields = lib.binding.responses;
  const read = fields.recorded(native.pointer!);
  const errPtr = read ? read.error : fields.error(native.pointer!);
  if (errPtr !== undefined) {
    return new InferResponse(final, errorFromPtr(lib, errPtr, false), native);
  }
  if (!read) return new InferResponse(final, undefined, native);
  const { model, id, parameters } = read;
  let outputs: Record<string, Tensor> | undefined;
  try {
    outputs = read.outputs && native.tensors(read.outputs);
  } catch {
    outputs = undefined; // read on first use, which reports it
  }
  const copied = { model, id, outputs, parameters };
  if (inJs && outputs && parameters && !native.viewing && allHost(outputs)) {
    native.release(); // everything is in JS memory: no holder needed
    return new InferResponse(final, undefined, undefined, copied);
  }
  return new InferResponse(final, undefined, native, copied);
}

/** Whether no output is in GPU memory. */
function allHost(outputs: Record<string, Tensor>): boolean {
  for (const name in outputs) if (outputs[name].memoryType === "GPU") return false;
  return true;
}
