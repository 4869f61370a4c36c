/**
 * Models typed from their configuration: the shape of the declarations `tritonffi types` writes
 * (one {@link ModelDeclaration} per model), and what the API makes of one — the inputs a request
 * takes, the outputs a response gives, whether `inferOne` fits. Types only: nothing here exists at
 * run time.
 *
 * @module
 */
import type { DataTypeName } from "../ffi/mod.ts";
import type { TensorDataTypes } from "./dtypes.ts";
import type { InferRequest } from "./request.ts";
import type { InferResponse } from "./response.ts";
import type { Tensor } from "./tensor.ts";

/** One input or output of a {@link ModelDeclaration}. */
export interface TensorDeclaration {
  /** Triton's data type name (`"FP32"`, `"BYTES"`, …). */
  readonly datatype: DataTypeName;
  /** The shape in a request or response: the batch dimension first (as -1) where the model
   * batches, then `dims`; -1 is any size. */
  readonly shape?: readonly number[];
}

/**
 * What `tritonffi types` declares of a model: its inputs (an optional input is an optional
 * property), its outputs, whether it is decoupled, how it batches, its parameters.
 */
export interface ModelDeclaration {
  /** Inputs by name. */
  readonly inputs: { readonly [name: string]: TensorDeclaration };
  /** Outputs by name. */
  readonly outputs: { readonly [name: string]: TensorDeclaration };
  /** `model_transaction_policy.decoupled`: zero or more responses per request. */
  readonly decoupled?: boolean;
  /** `max_batch_size`; 0 = the model does not batch. */
  readonly maxBatchSize?: number;
  /** The configuration's `parameters` (`string_value`s). */
  readonly parameters?: { readonly [key: string]: string };
}

/** A map of model name → {@link ModelDeclaration}, as `tritonffi types` writes it (`Models`):
 * what `new Server<Models>(…)` takes. */
export type ModelDeclarations<M> = { readonly [K in keyof M]: ModelDeclaration };

/** The declaration of model `N` in `M`, or `undefined` where `M` declares none. */
export type DeclarationOf<M, N extends string> = N extends keyof M
  ? M[N] extends ModelDeclaration ? M[N] : undefined
  : undefined;

/** What a typed request takes for an input of data type `D` as a plain value: the TypedArray of
 * the data type, `boolean[]` for BOOL, `string[]` for BYTES (none for BF16, which no TypedArray
 * implies: give a `Tensor` or `{ dtype, data }`). */
export interface PlainInputs {
  BOOL: readonly boolean[];
  UINT8: Uint8Array;
  UINT16: Uint16Array;
  UINT32: Uint32Array;
  UINT64: BigUint64Array;
  INT8: Int8Array;
  INT16: Int16Array;
  INT32: Int32Array;
  INT64: BigInt64Array;
  FP16: Float16Array;
  FP32: Float32Array;
  FP64: Float64Array;
  BYTES: readonly string[];
  BF16: never;
}

/** The `data` of a `{ dtype, shape, data }` input of data type `D`. */
export interface RecordInputs {
  BOOL: Uint8Array | readonly boolean[];
  UINT8: Uint8Array | readonly number[];
  UINT16: Uint16Array | readonly number[];
  UINT32: Uint32Array | readonly number[];
  UINT64: BigUint64Array | readonly (bigint | number)[];
  INT8: Int8Array | readonly number[];
  INT16: Int16Array | readonly number[];
  INT32: Int32Array | readonly number[];
  INT64: BigInt64Array | readonly (bigint | number)[];
  FP16: TensorDataTypes["FP16"] | readonly number[];
  FP32: Float32Array | readonly number[];
  FP64: Float64Array | readonly number[];
  BYTES: readonly (string | Uint8Array)[];
  BF16: Uint16Array | readonly number[];
}

/** An input of data type `D`: a `Tensor<D>`, the plain value of {@link PlainInputs}, or
 * `{ dtype: D, shape?, data }`. */
export type InputValue<D extends DataTypeName> =
  | Tensor<D>
  | PlainInputs[D]
  | { readonly dtype: D; readonly shape?: readonly number[]; readonly data: RecordInputs[D] };

/** The `inputs` of a request to a model declared `T`: each declared input by name, of its data
 * type; optional inputs optional. */
export type InputsOf<T extends ModelDeclaration> = {
  readonly [K in keyof T["inputs"]]: InputValue<NonNullable<T["inputs"][K]>["datatype"]>;
};

/** The outputs declared in `O` (`ModelDeclaration["outputs"]`), or `undefined` for a model
 * without a declaration. */
export type OutputDeclarations = ModelDeclaration["outputs"] | undefined;

/** An output name a response of outputs `O` takes: a declared one, or any string without a
 * declaration. */
export type OutputName<O extends OutputDeclarations> = O extends undefined ? string
  : keyof O & string;

/** A declared output name of `O`; none without a declaration. */
export type DeclaredOutputName<O extends OutputDeclarations> = O extends undefined ? never
  : keyof O & string;

/** The data type of declared output `N` of `O`. */
export type OutputDataType<O extends OutputDeclarations, N extends string> = O extends undefined
  ? DataTypeName
  : N extends keyof O ? NonNullable<O>[N]["datatype"]
  : DataTypeName;

/** The outputs of a response of outputs `O`, by name: each declared output of its data type
 * (absent from a response that was not asked for it, or carries an error); any name without a
 * declaration. */
export type OutputsOf<O extends OutputDeclarations> = O extends undefined
  ? Readonly<Record<string, Tensor>>
  : { readonly [K in keyof O]?: Tensor<NonNullable<NonNullable<O>[K]>["datatype"]> };

/** The declared outputs of a model declared `T` (`undefined` without a declaration). */
export type ModelOutputs<T extends ModelDeclaration | undefined> = T extends ModelDeclaration
  ? T["outputs"]
  : undefined;

/** What `inferOne` refuses: the model is declared decoupled. */
export interface DecoupledModel {
  /** A decoupled model sends zero or more responses per request: read them with `infer()`. */
  readonly "decoupled: read its responses with infer()": never;
}

/** The `this` of `inferOne` on a model declared `T`: anything, but a model declared decoupled. */
export type InferOneThis<T extends ModelDeclaration | undefined> = T extends
  { readonly decoupled: true } ? DecoupledModel : unknown;

/** A request to a model declared `T`: {@link InputsOf} as `inputs`, declared output names in
 * `outputs`; any {@link InferRequest} without a declaration. */
export type ModelRequest<T extends ModelDeclaration | undefined> = T extends ModelDeclaration
  ? InferRequest<InputsOf<T>, keyof T["outputs"] & string>
  : InferRequest;

/** A response of a model declared `T`: its outputs typed by the declaration. */
export type ModelResponse<T extends ModelDeclaration | undefined> = InferResponse<ModelOutputs<T>>;
