/**
 * `config.pbtxt` read into a {@link ModelConfig}: the text format of Triton's `model_config.proto`
 * as the JSON form `TRITONSERVER_ServerModelConfig` gives (field names as written, enum values as
 * their names, repeated fields as arrays, map fields as objects), without the defaults Triton
 * fills in.
 *
 * @module
 */
import { TritonError } from "./errors.ts";
import type { JsonObject, JsonValue, ModelConfig } from "./model_config.ts";
import { parseTextFormat, type TextMessage, type TextValue } from "./text_format.ts";

/** The repeated fields of model_config.proto's messages (any message: the names do not clash). */
const REPEATED: ReadonlySet<string> = new Set([
  "input",
  "output",
  "dims",
  "shape",
  "instance_group",
  "gpus",
  "secondary_devices",
  "profile",
  "preferred_batch_size",
  "step",
  "batch_input",
  "batch_output",
  "source_input",
  "target_name",
  "model_warmup",
  "op_library_filename",
  "control_input",
  "control",
  "int32_false_true",
  "fp32_false_true",
  "bool_false_true",
  "state",
  "initial_state",
  "resources",
  "gpu_execution_accelerator",
  "cpu_execution_accelerator",
  "graph_spec",
  "agents",
  "versions",
  "metric_control",
  "buckets",
]);

/** The map fields (`map<string, …>`), written as repeated `{ key: … value: … }` entries. */
const MAPS: ReadonlySet<string> = new Set([
  "parameters",
  "cc_model_filenames",
  "metric_tags",
  "input_map",
  "output_map",
  "priority_queue_policy",
  "inputs",
  "input_lower_bound",
  "input_upper_bound",
  "graph_spec_lower_bound",
  "graph_spec_upper_bound",
]);

/** The bool fields, whose values may be written `true`, `t`, `True`, `1` (and false likewise). */
const BOOLEANS: ReadonlySet<string> = new Set([
  "optional",
  "is_shape_tensor",
  "allow_ragged_batch",
  "is_non_linear_format_io",
  "decoupled",
  "preserve_ordering",
  "passive",
  "enable",
  "allow_timeout_override",
  "zero_data",
  "random_data",
  "eager_batching",
  "iterative_sequence",
  "use_same_buffer_for_input_output",
  "use_growable_memory",
  "generate_sequence_batch",
  "preferred_batch_size_only",
  "busy_wait_events",
  "graphs",
  "output_copy_stream",
]);

/**
 * Reads a model configuration written in protobuf's text format (`config.pbtxt`).
 * @param text the configuration.
 * @param source what to call it in errors (its path).
 * @returns the configuration in Triton's JSON form; only what the text sets (no defaults: a
 *   model without `max_batch_size` has none here, where Triton's completed configuration has 0).
 * @throws {TritonError} INVALID_ARG naming the line of what is not text format, or of a field
 *   given a value of the wrong kind (a message where a list or a scalar belongs).
 */
export function parseModelConfig(text: string, source = "config.pbtxt"): Partial<ModelConfig> {
  return messageJson(parseTextFormat(text, source), source) as Partial<ModelConfig>;
}

function messageJson(message: TextMessage, source: string): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const field of message.fields) {
    const name = field.name;
    if (MAPS.has(name)) {
      if (field.value.kind !== "message") {
        throw new TritonError(
          "INVALID_ARG",
          `${source}:${field.line}: '${name}' is a map: entries are { key: … value: … }`,
        );
      }
      const entry = field.value.fields;
      const key = entry.find((f) => f.name === "key")?.value;
      const value = entry.find((f) => f.name === "value")?.value;
      if (key === undefined || key.kind === "message") {
        throw new TritonError(
          "INVALID_ARG",
          `${source}:${field.line}: '${name}' entry needs a key`,
        );
      }
      if (!Object.hasOwn(out, name)) setOwn(out, name, {});
      const map = out[name] as Record<string, JsonValue>;
      setOwn(map, String(key.value), value === undefined ? "" : valueJson("value", value, source));
      continue;
    }
    const value = valueJson(name, field.value, source);
    if (REPEATED.has(name)) {
      if (!Object.hasOwn(out, name)) setOwn(out, name, []);
      (out[name] as JsonValue[]).push(value);
    } else {
      setOwn(out, name, value);
    }
  }
  return out;
}

/** Sets `object[key]` as an own property, also where `key` is `__proto__`. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

function valueJson(name: string, value: TextValue, source: string): JsonValue {
  switch (value.kind) {
    case "message":
      return messageJson(value, source);
    case "string":
      return value.value;
    case "number":
      if (BOOLEANS.has(name) && (value.value === 0 || value.value === 1)) return value.value === 1;
      return value.value;
    case "identifier":
      if (BOOLEANS.has(name) || value.value === "true" || value.value === "false") {
        if (/^(true|t|True)$/.test(value.value)) return true;
        if (/^(false|f|False)$/.test(value.value)) return false;
      }
      return value.value;
  }
}
