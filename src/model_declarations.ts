/**
 * A model's configuration as a TypeScript declaration: {@link describeModel} reads what the API
 * types from a configuration (Triton's JSON form, from `config.pbtxt` or from a running server),
 * {@link renderDeclarations} writes the `Models` interface `new Server<Models>(…)` takes.
 *
 * @module
 */
import type { DataTypeName } from "../ffi/mod.ts";
import { DATA_TYPES, isDataTypeName } from "./dtypes.ts";
import { TritonError } from "./errors.ts";
import type { ModelConfig } from "./model_config.ts";
import { setOwn } from "./model_config_text.ts";

/** An input or output as declared. */
export interface TensorDescription {
  /** Its name. */
  readonly name: string;
  /** Triton's data type name (`TYPE_STRING` is `"BYTES"`). */
  readonly datatype: DataTypeName;
  /** `dims` of the configuration: the shape without the batch dimension; -1 = any size. */
  readonly dims: readonly number[];
  /** The shape in a request or a response: -1 (the batch) first where the model batches. */
  readonly shape: readonly number[];
  /** An input a request may leave out (`optional: true`); false for outputs. */
  readonly optional: boolean;
  /** `is_shape_tensor`. */
  readonly shapeTensor: boolean;
  /** `reshape.shape`: the shape the model itself sees or produces. */
  readonly reshape?: readonly number[];
  /** `label_filename` of an output. */
  readonly labels?: string;
}

/** What a declaration says of a model. */
export interface ModelDescription {
  /** The model's name. */
  readonly name: string;
  /** `backend`, or `""`. */
  readonly backend: string;
  /** `platform`, or `""`. */
  readonly platform: string;
  /** `max_batch_size`; 0 = the model does not batch. */
  readonly maxBatchSize: number;
  /** `model_transaction_policy.decoupled`. */
  readonly decoupled: boolean;
  /** Inputs, in the configuration's order. */
  readonly inputs: readonly TensorDescription[];
  /** Outputs, in the configuration's order. */
  readonly outputs: readonly TensorDescription[];
  /** `parameters`: key → `string_value`. */
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * What the API types of a model, from its configuration.
 * @param config the configuration in Triton's JSON form (`server.model(name).config()`, or
 *   `parseModelConfig` of a config.pbtxt); fields it leaves out take Triton's defaults
 *   (`max_batch_size` 0, not decoupled).
 * @param name the model's name (its directory's); defaults to the configuration's.
 * @throws {TritonError} INVALID_ARG for a configuration without a name, a tensor without a name,
 *   or a data type that is not Triton's (`TYPE_INVALID`), naming the model and the tensor.
 */
export function describeModel(config: Partial<ModelConfig>, name?: string): ModelDescription {
  const model = name ?? config.name;
  if (typeof model !== "string" || model === "") {
    throw new TritonError("INVALID_ARG", "a model configuration without a name");
  }
  const maxBatchSize = Number(config.max_batch_size ?? 0);
  const tensor = (
    kind: "input" | "output",
    t: {
      name?: string;
      data_type?: string;
      dims?: readonly number[];
      optional?: boolean;
      is_shape_tensor?: boolean;
      reshape?: { shape?: readonly number[] };
      label_filename?: string;
    },
  ): TensorDescription => {
    if (typeof t.name !== "string" || t.name === "") {
      throw new TritonError("INVALID_ARG", `model '${model}': an ${kind} without a name`);
    }
    const datatype = dataTypeOf(t.data_type);
    if (datatype === undefined) {
      throw new TritonError(
        "INVALID_ARG",
        `model '${model}': ${kind} '${t.name}' has data type ${
          JSON.stringify(t.data_type ?? null)
        }, not one of Triton's (TYPE_FP32, TYPE_STRING, …)`,
      );
    }
    const dims = (t.dims ?? []).map(Number);
    return {
      name: t.name,
      datatype,
      dims,
      shape: maxBatchSize > 0 ? [-1, ...dims] : dims,
      optional: kind === "input" && t.optional === true,
      shapeTensor: t.is_shape_tensor === true,
      ...(t.reshape ? { reshape: (t.reshape.shape ?? []).map(Number) } : {}),
      ...(t.label_filename ? { labels: t.label_filename } : {}),
    };
  };
  const parameters: Record<string, string> = {};
  for (const [key, value] of Object.entries(config.parameters ?? {})) {
    setOwn(parameters, key, String(value?.string_value ?? ""));
  }
  return {
    name: model,
    backend: config.backend ?? "",
    platform: config.platform ?? "",
    maxBatchSize,
    decoupled: config.model_transaction_policy?.decoupled === true,
    inputs: (config.input ?? []).map((t) => tensor("input", t)),
    outputs: (config.output ?? []).map((t) => tensor("output", t)),
    parameters,
  };
}

/** The data type name of a configuration's `TYPE_…`, or undefined. */
function dataTypeOf(configType: unknown): DataTypeName | undefined {
  if (typeof configType !== "string" || !configType.startsWith("TYPE_")) return undefined;
  const name = configType === "TYPE_STRING" ? "BYTES" : configType.slice(5);
  return isDataTypeName(name) ? name : undefined;
}

/** The JavaScript value of each data type, in a request (`in`) and a response (`out`), as the
 * doc comments say it; the numeric types but BOOL, FP16 and BF16 are their TypedArray both ways. */
const VALUES: Readonly<Partial<Record<DataTypeName, { in: string; out: string }>>> = {
  BOOL: { in: "boolean[]", out: "Uint8Array of 0/1" },
  FP16: {
    in: "Float16Array",
    out: "Float16Array, or Uint16Array half bits where the runtime has none",
  },
  BF16: {
    in: 'Uint16Array bfloat16 bits in a Tensor or { dtype: "BF16", data }',
    out: "Uint16Array of bfloat16 bits",
  },
  BYTES: { in: "string[]", out: "a Uint8Array per element; tensor.strings() decodes UTF-8" },
};

/** The value of data type `d` a request takes (`"in"`) or a response gives (`"out"`). */
function valueOf(d: DataTypeName, way: "in" | "out"): string {
  return VALUES[d]?.[way] ?? DATA_TYPES[d].array.name;
}

/** Options of {@link renderDeclarations}. */
export interface RenderOptions {
  /** What the declarations were made from, for the header (`"tritonffi types ./models"`). */
  readonly source?: string;
  /** Models left out, each with why, listed in the header. */
  readonly skipped?: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * The TypeScript declarations of `models`: one `Models` interface, a property per model (see
 * `ModelDeclaration`), with the shapes, batching and data types in doc comments.
 * @param models the models, in the order to write them.
 * @returns the text of a `models.d.ts` (formatted as `deno fmt` formats it).
 */
export function renderDeclarations(
  models: readonly ModelDescription[],
  options: RenderOptions = {},
): string {
  const lines: string[] = [
    `// Generated by ${options.source ?? "tritonffi types"}; do not edit: generate it again when a`,
    "// model's configuration changes. Use it as `new Server<Models>(…)`.",
  ];
  for (const { name, reason } of options.skipped ?? []) {
    lines.push(`// Not declared: ${oneLine(name)}: ${oneLine(reason)}`);
  }
  lines.push("", "/** The models' declarations (see `ModelDeclaration` in tritonffi). */");
  lines.push("export interface Models {");
  models.forEach((m, i) => {
    if (i > 0) lines.push("");
    lines.push(...comment("  ", modelDoc(m)));
    lines.push(`  ${key(m.name)}: {`);
    for (const way of ["in", "out"] as const) {
      const tensors = way === "in" ? m.inputs : m.outputs;
      const field = way === "in" ? "inputs" : "outputs";
      if (tensors.length === 0) {
        lines.push(`    ${field}: Record<never, never>;`);
        continue;
      }
      lines.push(`    ${field}: {`);
      for (const t of tensors) tensorLines(lines, t, m, way);
      lines.push("    };");
    }
    lines.push(`    decoupled: ${m.decoupled};`);
    lines.push(`    maxBatchSize: ${m.maxBatchSize};`);
    const params = Object.entries(m.parameters);
    if (params.length === 0) {
      lines.push("    parameters: Record<never, never>;");
    } else {
      lines.push("    parameters: {");
      for (const [k, v] of params) lines.push(`      ${key(k)}: ${stringLiteral(v)};`);
      lines.push("    };");
    }
    lines.push("  };");
  });
  lines.push("}", "");
  return lines.join("\n");
}

function tensorLines(
  lines: string[],
  t: TensorDescription,
  m: ModelDescription,
  way: "in" | "out",
): void {
  lines.push(...comment("      ", tensorDoc(t, m, way)));
  const optional = way === "in" && t.optional;
  const name = `${key(t.name)}${optional ? "?" : ""}`;
  const datatype = `datatype: ${JSON.stringify(t.datatype)};`;
  const shape = `shape: [${t.shape.join(", ")}]`;
  const line = `      ${name}: { ${datatype} ${shape} };`;
  if (line.length <= 100) {
    lines.push(line);
  } else {
    lines.push(`      ${name}: {`, `        ${datatype}`, `        ${shape};`, "      };");
  }
}

function modelDoc(m: ModelDescription): string[] {
  const by = [m.backend && `backend ${m.backend}`, m.platform && `platform ${m.platform}`]
    .filter(Boolean).join(", ");
  const doc = [`${m.name}${by ? ` (${by})` : ""}.`];
  doc.push(
    m.maxBatchSize > 0
      ? `Batches up to ${m.maxBatchSize} (max_batch_size): each shape's first dimension, -1, ` +
        "is the batch."
      : "Does not batch (max_batch_size 0): shapes are as given.",
  );
  if (m.decoupled) {
    doc.push(
      "Decoupled: zero or more responses per request, read with infer() (inferOne() is " +
        "refused).",
    );
  }
  return doc;
}

function tensorDoc(t: TensorDescription, m: ModelDescription, way: "in" | "out"): string[] {
  const shape = `[${t.shape.join(", ")}]`;
  const doc = [`${t.datatype} (${valueOf(t.datatype, way)}), shape ${shape}.`];
  const notes: string[] = [];
  if (m.maxBatchSize > 0) {
    notes.push(`the batch (1 to ${m.maxBatchSize}) first, then [${t.dims.join(", ")}]`);
  }
  if (t.dims.includes(-1)) notes.push("-1 in dims: any size");
  if (notes.length) doc.push(`Shape: ${notes.join("; ")}.`);
  if (t.optional) doc.push("Optional: a request may leave it out.");
  if (t.shapeTensor) doc.push("A shape tensor.");
  if (t.reshape) doc.push(`The model sees it as [${t.reshape.join(", ")}] (reshape).`);
  if (t.labels) doc.push(`Classes labelled by ${t.labels} (classificationLabel).`);
  return doc;
}

/** `text` as a JSDoc comment at `indent`, one sentence a line. */
function comment(indent: string, text: readonly string[]): string[] {
  const safe = text.map((s) => oneLine(s).replace(/\*\//g, "*\\/"));
  if (safe.length === 1) return [`${indent}/** ${safe[0]} */`];
  return [`${indent}/**`, ...safe.map((s) => `${indent} * ${s}`), `${indent} */`];
}

function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, " ");
}

/** A property name: as it is where it is an identifier, quoted otherwise. */
function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : stringLiteral(name);
}

/** A string literal as `deno fmt` writes it: in double quotes, unless the string holds more
 * double quotes than single ones. */
function stringLiteral(s: string): string {
  const json = JSON.stringify(s);
  const doubles = s.split('"').length - 1;
  const singles = s.split("'").length - 1;
  if (doubles <= singles) return json;
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}
