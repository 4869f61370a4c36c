/**
 * What the check of a mapping knows of one model's configuration: its inputs and outputs by name
 * and data type, which inputs a mapping has taken, which the model requires; each mismatch an
 * INVALID_ARG `TritonError` naming the model and the tensor.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";
import type { ModelConfig, ModelInputConfig } from "../../src/model_config.ts";
import { Tensor, type TensorLike } from "../../src/tensor.ts";
import type { Json } from "../common/json.ts";
import type { InputSlot } from "./mapping.ts";

/** Triton's integer data types. */
export const INTEGER_TYPES: readonly DataTypeName[] = [
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "UINT8",
  "UINT16",
  "UINT32",
  "UINT64",
];
/** The float data types a number goes into as JSON. */
export const FLOAT_TYPES: readonly DataTypeName[] = ["FP32", "FP64"];

/** The data types each OpenAI field may go into (others: any but FP16 and BF16). */
export const FIELD_TYPES: Readonly<Record<string, readonly DataTypeName[]>> = {
  max_tokens: INTEGER_TYPES,
  seed: INTEGER_TYPES,
  temperature: FLOAT_TYPES,
  top_p: FLOAT_TYPES,
  presence_penalty: FLOAT_TYPES,
  frequency_penalty: FLOAT_TYPES,
  stop: ["BYTES"],
  response_format: ["BYTES"],
  tools: ["BYTES"],
  tool_choice: ["BYTES"],
};
/** What a field of the caller's own may go into. */
export const ANY_TYPE: readonly DataTypeName[] = [
  ...INTEGER_TYPES,
  ...FLOAT_TYPES,
  "BOOL",
  "BYTES",
];

/** A config data type (`TYPE_STRING`) as Triton's name (`BYTES`). */
export function dataTypeOfConfig(type: string): DataTypeName {
  return (type === "TYPE_STRING" ? "BYTES" : type.replace(/^TYPE_/, "")) as DataTypeName;
}

/** What the checks know of one model. */
export class ModelTensors {
  readonly #what: string;
  readonly #config: ModelConfig;
  readonly #used = new Map<string, string>();

  constructor(what: string, config: ModelConfig) {
    this.#what = what;
    this.#config = config;
  }

  /** INVALID_ARG naming the model. */
  fail(message: string): never {
    throw new TritonError("INVALID_ARG", `${this.#what}: ${message}`);
  }

  hasInput(name: string): boolean {
    return this.#config.input.some((i) => i.name === name);
  }

  hasOutput(name: string): boolean {
    return this.#config.output.some((o) => o.name === name);
  }

  /** The input `name`, of one of `types`, taken for `role` (once). */
  input(name: unknown, role: string, types: readonly DataTypeName[]): InputSlot {
    if (typeof name !== "string" || name === "") {
      this.fail(`the mapping's ${role} must name an input, not ${JSON.stringify(name)}`);
    }
    const input = this.#config.input.find((i) => i.name === name);
    if (input === undefined) {
      this.fail(
        `the ${role} input '${name}' is not an input of the model (its inputs: ${
          this.#config.input.map((i) => i.name).join(", ") || "none"
        })`,
      );
    }
    const dtype = dataTypeOfConfig(input.data_type);
    if (!types.includes(dtype)) {
      this.fail(
        `input '${name}' (the ${role}) is ${dtype}; it must be ${types.join(" or ")}`,
      );
    }
    const taken = this.#used.get(name);
    if (taken !== undefined) this.fail(`input '${name}' is mapped twice (${taken} and ${role})`);
    this.#used.set(name, role);
    return {
      name,
      dtype,
      dims: input.dims,
      batched: this.#config.max_batch_size > 0,
    };
  }

  /** The output `name`, of one of `types`, for `role`. */
  output(name: unknown, role: string, types: readonly DataTypeName[]): string {
    if (typeof name !== "string" || name === "") {
      this.fail(`the mapping's ${role} must name an output, not ${JSON.stringify(name)}`);
    }
    const output = this.#config.output.find((o) => o.name === name);
    if (output === undefined) {
      this.fail(
        `the ${role} output '${name}' is not an output of the model (its outputs: ${
          this.#config.output.map((o) => o.name).join(", ") || "none"
        })`,
      );
    }
    const dtype = dataTypeOfConfig(output.data_type);
    if (!types.includes(dtype)) {
      this.fail(`output '${name}' (the ${role}) is ${dtype}; it must be ${types.join(" or ")}`);
    }
    return name;
  }

  /** A constant input: `value` as a tensor of the input's data type. */
  constant(name: string, value: TensorLike | boolean, role: string): Tensor {
    const slot = this.input(name, role, [...ANY_TYPE, "FP16", "BF16"]);
    let tensor: Tensor;
    try {
      tensor = typeof value === "boolean"
        ? new Tensor("BOOL", slot.batched ? [1, 1] : [1], new Uint8Array([value ? 1 : 0]))
        : Tensor.from(value);
    } catch (e) {
      this.fail(`input '${name}' (${role}): ${e instanceof Error ? e.message : e}`);
    }
    if (tensor.dtype !== slot.dtype) {
      this.fail(`input '${name}' (${role}) is ${slot.dtype}, the value given is ${tensor.dtype}`);
    }
    return tensor;
  }

  /** Fails for a required input no role fills, or that only `fieldOf` fills without a
   * default. */
  checkRequired(fieldOf: ReadonlyMap<string, string>, defaults: ReadonlyMap<string, Json>): void {
    for (const input of this.#config.input as readonly ModelInputConfig[]) {
      if (input.optional) continue;
      const field = fieldOf.get(input.name);
      if (field !== undefined && !defaults.has(field)) {
        this.fail(
          `input '${input.name}' is required by the model, but the mapping fills it only when a ` +
            `request gives '${field}'`,
        );
      }
      if (field === undefined && !this.#used.has(input.name)) {
        this.fail(
          `input '${input.name}' is required by the model, and the mapping does not fill it`,
        );
      }
    }
  }
}
