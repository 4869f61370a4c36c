/**
 * The front ends' trace manager, as `tritonserver`'s (`src/tracer.cc`, mode `triton`): global trace
 * settings (from the service's `trace` option) and per-model overrides; every `trace_rate`-th
 * inference request the front end serves is traced, up to `trace_count` (-1: no limit), and each
 * trace is written as JSON in Triton's trace file format: into `trace_file` as one JSON array when
 * `log_frequency` is 0 (at `close()`), else every `log_frequency` traces into `trace_file.<n>`
 * (n = 0, 1, …), one JSON array each.
 *
 * @module
 */
import { appendFile, writeFile } from "node:fs/promises";
import { describeValue, expectRecord, knownFields } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import {
  createTrace,
  type TraceActivity,
  type TraceLevelName,
  type TraceOptions,
  traceSettings,
} from "../../src/trace.ts";
import { DATA_TYPES, isDataTypeName } from "../../src/dtypes.ts";
import { invalid } from "../common/refusals.ts";

/**
 * Checks that `server`'s core traces: creates a trace and deletes it.
 * @throws {TritonError} UNSUPPORTED where the core was built without tracing; UNAVAILABLE when
 *   the server is not running.
 */
export function checkTracing(server: Server): void {
  createTrace(server.native().lib, traceSettings({ onActivity: () => {} })).notSubmitted();
}

/** A trace level, Triton's names: `"OFF"`, or `"TIMESTAMPS"` and/or `"TENSORS"`. */
export type TraceLevelSetting = "OFF" | "TIMESTAMPS" | "TENSORS";

/** The `trace` option of `serve()` and `serveGrpc()`: `tritonserver`'s `--trace-config` (mode
 * `triton`). The trace file is set here only: over the protocol it cannot be changed, as in
 * `tritonserver`. */
export interface TraceServeOptions {
  /** Where traces are written (`trace_file`); none: tracing cannot be turned on. */
  readonly file?: string;
  /** `trace_level`: `"OFF"`, `"TIMESTAMPS"`, `"TENSORS"` or both as a list. @default "OFF" */
  readonly level?: TraceLevelSetting | readonly TraceLevelSetting[];
  /** `trace_rate`: trace one request in this many. @default 1000 */
  readonly rate?: number;
  /** `trace_count`: how many traces at most, -1 for no limit. @default -1 */
  readonly count?: number;
  /** `log_frequency`: write the file every this many traces; 0 writes once, at `close()`.
   * @default 0 */
  readonly logFrequency?: number;
}

const TIMESTAMPS = 1;
const TENSORS = 2;
const U32_MAX = 2 ** 32 - 1;
const I32_MAX = 2 ** 31 - 1;

/** The settings that can be given or cleared per model (the file is the service's). */
interface Values {
  readonly level: number;
  readonly rate: number;
  readonly count: number;
  readonly logFrequency: number;
}
type Field = keyof Values;
const FIELDS: readonly Field[] = ["level", "rate", "count", "logFrequency"];

/** A settings update on plain values: each field's new value, or null to clear it (the model's
 * own value gone, the global one used; the global one back to the service's option). */
export type TraceUpdate = { readonly [F in Field]?: number | null };

/** The settings as the protocol answers them: each a list of strings (Triton's). */
export type TraceSettingsValue = Record<string, string[]>;

/** One setting in force: its values, which of them were given, and its counters. Replaced (and
 * its counters started again) by every update, as in `tritonserver`. */
class Setting {
  /** Requests seen, traces left (count), traces written and not yet saved. */
  sample = 0;
  left: number;
  pending: string[] = [];
  inFlight = 0;
  retired = false;
  readonly values: Values;
  readonly given: ReadonlySet<Field>;
  constructor(values: Values, given: ReadonlySet<Field>) {
    this.values = values;
    this.given = given;
    this.left = values.count;
  }
}

/** Text of a trace level. */
function levelNames(level: number): string[] {
  if (level === 0) return ["OFF"];
  const out: string[] = [];
  if (level & TIMESTAMPS) out.push("TIMESTAMPS");
  if (level & TENSORS) out.push("TENSORS");
  return out;
}

/** A level from Triton's names.
 * @throws {TritonError} INVALID_ARG for an unknown name, or "OFF" with another. */
export function parseLevel(names: readonly string[], what = "trace_level"): number {
  let level = 0;
  for (const n of names) {
    if (n === "OFF") {
      if (names.length !== 1) invalid("Expect only one trace level 'OFF' is specified");
    } else if (n === "TIMESTAMPS") level |= TIMESTAMPS;
    else if (n === "TENSORS") level |= TENSORS;
    else invalid(`unknown ${what} '${n}' (OFF, TIMESTAMPS or TENSORS)`);
  }
  return level;
}

function integerOption(field: string, value: unknown, min: number, max: number, fallback: number) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new TritonError(
      "INVALID_ARG",
      `${field} must be an integer in [${min}, ${max}], not ${describeValue(value)}`,
    );
  }
  return value;
}

/** The JSON text of a string (escaped as JSON needs). */
const str = (s: string) => JSON.stringify(s);

/** A tensor's data as Triton's trace writes it: its elements, comma-separated (BOOL as 0 and 1,
 * BYTES as quoted text); nothing for FP16, BF16 and unknown types. */
function tensorData(datatype: string, data: Uint8Array | undefined): string {
  if (data === undefined || !isDataTypeName(datatype)) return "";
  if (datatype === "FP16" || datatype === "BF16") return "";
  if (datatype === "BYTES") {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const decoder = new TextDecoder();
    const out: string[] = [];
    for (let o = 0; o + 4 <= data.byteLength;) {
      const n = view.getUint32(o, true);
      out.push(`"${decoder.decode(data.subarray(o + 4, o + 4 + n))}"`);
      o += 4 + n;
    }
    return out.join(",");
  }
  const { array, byteSize } = DATA_TYPES[datatype];
  const count = Math.floor(data.byteLength / byteSize);
  // A copy: the data may not be aligned for its type.
  const elements = new array(data.slice(0, count * byteSize).buffer, 0, count);
  const out: string[] = [];
  for (const v of elements) out.push(datatype === "BOOL" ? (v ? "1" : "0") : String(v));
  return out.join(",");
}

/** One activity as the objects of Triton's trace file (JSON text, without the array). */
function activityJson(a: TraceActivity): string[] {
  const id = a.traceId.toString();
  if (a.type === "tensor") {
    const tensor = `{"name":${str(a.name ?? "")},"data":${str(tensorData(a.datatype, a.data))},` +
      `"shape":${str((a.shape ?? []).join(","))},"dtype":${str(a.datatype)}}`;
    return [`{"id":${id},"activity":${str(a.activity)},"tensor":${tensor}}`];
  }
  const out: string[] = [];
  if (a.activity === "REQUEST_START") {
    let head = `{"id":${id},"model_name":${str(a.model)},"model_version":${a.modelVersion}`;
    if (a.requestId !== "") head += `,"request_id":${str(a.requestId)}`;
    if (a.parentId !== 0n) head += `,"parent_id":${a.parentId}`;
    out.push(head + "}");
  }
  out.push(`{"id":${id},"timestamps":[{"name":${str(a.activity)},"ns":${a.timestampNs}}]}`);
  return out;
}

/** The trace file: `file` (one JSON array, its "]" at the end) or `file.<n>` per save. */
class TraceFile {
  #index = 0;
  #opened = false;
  /** The writes, one after the other. */
  #chain: Promise<void> = Promise.resolve();
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }

  save(objects: readonly string[], indexed: boolean): void {
    if (objects.length === 0) return;
    const text = objects.join(",");
    if (indexed) {
      const name = `${this.name}.${this.#index++}`;
      this.#then(() => writeFile(name, `[${text}]`));
    } else if (!this.#opened) {
      this.#opened = true;
      this.#then(() => writeFile(this.name, `[${text}`));
    } else {
      this.#then(() => appendFile(this.name, `,${text}`));
    }
  }

  #then(write: () => Promise<void>): void {
    this.#chain = this.#chain.then(write).catch((e) => {
      console.error(`tritonffi: failed writing the trace file ${this.name}:`, e);
    });
  }

  /** Ends the single-file array and waits for the writes. */
  async close(): Promise<void> {
    if (this.#opened) this.#then(() => appendFile(this.name, "]"));
    this.#opened = false;
    await this.#chain;
  }
}

/**
 * Trace settings and the traces they take (see the module's doc), as `tritonserver`'s trace
 * manager: give one to both `serve()` and `serveGrpc()` (their `trace` option) and a setting
 * changed over either protocol holds for both, as in `tritonserver`, whose front ends share one.
 * Given plain options instead, each service makes its own and closes it with itself; one given
 * is closed by whoever made it (`close()`, or `await using`), once the services are closed.
 * @example One trace manager for both front ends
 * ```ts
 * import { Server } from "tritonffi";
 * import { serve, TraceManager } from "tritonffi/serve";
 * import { serveGrpc } from "tritonffi/grpc";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using trace = new TraceManager(server, { file: "/tmp/trace.json", rate: 100 });
 * await using http = await serve(server, { port: 0, trace });
 * await using grpc = await serveGrpc(server, { port: 0, trace });
 * // POST /v2/trace/setting or a TraceSetting call changes what both front ends trace.
 * console.log(trace.settings().trace_rate); // [ "100" ]
 * ```
 */
export class TraceManager implements AsyncDisposable {
  /** The service's settings (the option's), what a cleared global field returns to. */
  readonly #defaults: Values;
  #global: Setting;
  readonly #models = new Map<string, Setting>();
  readonly #file: TraceFile;
  #closed = false;
  /** The file is complete: a trace ending later is not written. */
  #written = false;
  /** Resolves once no trace is in flight. */
  #inFlight = 0;
  #idle: (() => void)[] = [];

  /**
   * @param server the server whose requests are traced.
   * @param options the file and the initial global settings. @default tracing off, no file
   * @throws {TritonError} INVALID_ARG for bad options, naming the field; UNSUPPORTED for a
   *   level other than OFF where `server`'s core has no tracing.
   */
  constructor(server: Server, options?: TraceServeOptions) {
    const o = options ?? {};
    expectRecord("trace", o, "{ file?, level?, rate?, count?, logFrequency? }");
    knownFields("trace", o as Record<string, unknown>, [
      "file",
      "level",
      "rate",
      "count",
      "logFrequency",
    ]);
    if (o.file !== undefined && typeof o.file !== "string") {
      throw new TritonError(
        "INVALID_ARG",
        `trace.file must be a string, not ${describeValue(o.file)}`,
      );
    }
    const names = o.level === undefined
      ? ["OFF"]
      : typeof o.level === "string"
      ? [o.level]
      : o.level;
    if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
      throw new TritonError(
        "INVALID_ARG",
        `trace.level must be "OFF", "TIMESTAMPS", "TENSORS" or a list, not ${
          describeValue(o.level)
        }`,
      );
    }
    this.#defaults = {
      level: parseLevel(names, "trace.level"),
      rate: integerOption("trace.rate", o.rate, 0, U32_MAX, 1000),
      count: integerOption("trace.count", o.count, -1, I32_MAX, -1),
      logFrequency: integerOption("trace.logFrequency", o.logFrequency, 0, U32_MAX, 0),
    };
    this.#file = new TraceFile(o.file ?? "");
    const problem = this.#problem(this.#defaults);
    if (problem !== undefined) throw new TritonError("INVALID_ARG", `trace: ${problem}`);
    if (this.#defaults.level !== 0) checkTracing(server);
    this.#global = new Setting(this.#defaults, new Set(FIELDS));
  }

  /** Why `values` cannot trace (Triton's reasons), when they turn tracing on. */
  #problem(values: Values): string | undefined {
    if (values.level === 0) return undefined;
    if (values.rate === 0) return "sample rate must be non-zero";
    if (this.#file.name === "") return "trace file name is not given";
    return undefined;
  }

  /** The settings in force for `model` (the global ones for ""), as the protocol answers them. */
  settings(model = ""): TraceSettingsValue {
    const s = (model === "" ? undefined : this.#models.get(model)) ?? this.#global;
    return {
      trace_level: levelNames(s.values.level),
      trace_rate: [String(s.values.rate)],
      trace_count: [String(s.left)],
      log_frequency: [String(s.values.logFrequency)],
      trace_file: [this.#file.name],
      trace_mode: ["triton"],
    };
  }

  /**
   * Updates the global settings (`model` "") or `model`'s: a field given is set, null clears it
   * (a model's then follows the global one; the global one returns to the service's option), one
   * absent stays as it was. The counters start again, as in `tritonserver`.
   * @throws {TritonError} INVALID_ARG when the result would trace without a rate or a file.
   */
  update(model: string, update: TraceUpdate): void {
    const current = model === "" ? this.#global : this.#models.get(model);
    const fallback = model === "" ? this.#defaults : this.#global.values;
    const next = this.#merge(current, fallback, update);
    if (next === undefined) {
      this.#retire(this.#models.get(model));
      this.#models.delete(model);
      return;
    }
    const problem = this.#problem(next.values);
    if (problem !== undefined) invalid(`Attempting to set invalid trace setting :${problem}`);
    if (model !== "") {
      this.#retire(current);
      this.#models.set(model, next);
      return;
    }
    this.#retire(this.#global);
    this.#global = next;
    // The models that follow a global field follow its new value.
    for (const [name, s] of this.#models) {
      if (s.given.size === FIELDS.length) continue;
      const follow = this.#merge(s, next.values, {})!;
      if (this.#problem(follow.values) !== undefined) continue;
      this.#retire(s);
      this.#models.set(name, follow);
    }
  }

  #merge(current: Setting | undefined, fallback: Values, update: TraceUpdate): Setting | undefined {
    const given = new Set<Field>();
    const values: Record<Field, number> = { ...fallback };
    for (const f of FIELDS) {
      const u = update[f];
      if (u === null) continue;
      if (u !== undefined) {
        values[f] = u;
        given.add(f);
      } else if (current?.given.has(f)) {
        values[f] = current.values[f];
        given.add(f);
      }
    }
    if (current !== this.#global && given.size === 0) return undefined;
    return new Setting(values, given);
  }

  /** A setting replaced: what it wrote is saved now, what it still traces when it ends. */
  #retire(s: Setting | undefined): void {
    if (s === undefined) return;
    s.retired = true;
    this.#save(s);
  }

  #save(s: Setting): void {
    this.#file.save(s.pending, s.values.logFrequency !== 0);
    s.pending = [];
  }

  /**
   * The `trace` option for one inference request on `model`, when it is sampled (every
   * `trace_rate`-th request, while `trace_count` allows); undefined otherwise.
   */
  sample(model: string): TraceOptions | undefined {
    if (this.#closed) return undefined;
    const s = this.#models.get(model) ?? this.#global;
    const { level, rate, logFrequency } = s.values;
    if (level === 0 || rate === 0 || s.left === 0) return undefined;
    if (++s.sample % rate !== 0) return undefined;
    if (s.left > 0) s.left--;
    const objects: string[] = [];
    s.inFlight++;
    this.#inFlight++;
    const levels: TraceLevelName[] = [];
    if (level & TIMESTAMPS) levels.push("timestamps");
    if (level & TENSORS) levels.push("tensors");
    return {
      level: levels,
      onActivity: (a) => {
        objects.push(...activityJson(a));
      },
      onEnd: () => {
        s.inFlight--;
        if (objects.length > 0 && !this.#written) {
          s.pending.push(objects.join(","));
          const counted = s.pending.length;
          if (s.retired || (logFrequency !== 0 && counted >= logFrequency)) this.#save(s);
          else if (s.left === 0 && s.inFlight === 0) this.#save(s);
        }
        if (--this.#inFlight === 0) { for (const wake of this.#idle.splice(0)) wake(); }
      },
    };
  }

  /**
   * Stops sampling, waits up to `waitMs` for the traces in flight (a trace whose request never
   * reached Triton never ends) and writes what is left. Safe to call twice.
   * @param waitMs milliseconds to wait for the traces in flight. @default 2000
   */
  async close(waitMs = 2000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#inFlight > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#idle.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
    }
    this.#save(this.#global);
    for (const s of this.#models.values()) this.#save(s);
    this.#written = true;
    await this.#file.close();
  }

  /** {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The trace manager of a service given `option` (its `trace` option): the one given, which the
 * service leaves open (`owned` false), or a new one for its options, which the service closes.
 * @throws {TritonError} as the {@link TraceManager} constructor.
 */
export function traceOption(
  server: Server,
  option: TraceServeOptions | TraceManager | undefined,
): { readonly manager: TraceManager; readonly owned: boolean } {
  return option instanceof TraceManager
    ? { manager: option, owned: false }
    : { manager: new TraceManager(server, option), owned: true };
}
