/**
 * Custom metrics: `MetricFamily` (`TRITONSERVER_MetricFamily`) and `Metric`
 * (`TRITONSERVER_Metric`), reported with Triton's own metrics by `server.metrics()`. Users see the
 * two interfaces and make families with `server.metricFamily()`; the classes that hold the native
 * handles are the binding's own (not exported from `mod.ts`, kept out of the `.d.ts`).
 *
 * @module
 */
import { describeValue } from "./value_checks.ts";
import { expectRecord, invalidArgument } from "./value_checks.ts";
import { MetricKind as MetricKindCode, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { check, discard, TritonError } from "./errors.ts";
import { ParameterList } from "./parameters.ts";

/** The kind of a metric family. */
export type MetricKind = "counter" | "gauge" | "histogram";

/** What {@link Server.metricFamily} creates. */
export interface MetricFamilyOptions {
  /** `"counter"` (only goes up), `"gauge"` (set freely) or `"histogram"` (observations in
   * buckets). */
  readonly kind: MetricKind;
  /** Prometheus metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`. Triton keeps a name registered for the
   * life of the process: a later family of the same name must have the same kind and
   * description. */
  readonly name: string;
  /** Help text. */
  readonly description: string;
  /** Histograms: default bucket upper bounds, strictly increasing (`+Inf` is implicit). */
  readonly buckets?: readonly number[];
}

const kindCodes = {
  counter: MetricKindCode.COUNTER,
  gauge: MetricKindCode.GAUGE,
  histogram: MetricKindCode.HISTOGRAM,
} as const;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function invalid(message: string): never {
  throw new TritonError("INVALID_ARG", message);
}

function checkBuckets(buckets: unknown): readonly number[] {
  if (!Array.isArray(buckets)) invalid("buckets must be a list of numbers");
  buckets.forEach((b, i) => {
    if (typeof b !== "number" || !Number.isFinite(b) || (i > 0 && !(b > buckets[i - 1]))) {
      invalid(`buckets must be finite and strictly increasing, not [${buckets.join(", ")}]`);
    }
  });
  return Object.freeze([...buckets]);
}

/**
 * A family of custom metrics sharing a name, kind and help text; each {@link Metric} of it is one
 * label set. Made by {@link Server.metricFamily} (`TRITONSERVER_MetricFamilyNew`). Owns its
 * `TRITONSERVER_MetricFamily` and every metric made from it: `dispose()` deletes the metrics
 * first, then the family (Triton's required order). Not tied to a server (Triton's metrics
 * registry is process-wide); nothing is deleted by garbage collection.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * using requests = server.metricFamily({
 *   kind: "counter",
 *   name: "app_requests_total",
 *   description: "Requests",
 * });
 * const ok = requests.metric({ status: "ok" });
 * ok.increment();
 * console.log(ok.value()); // 1
 * ```
 */
export interface MetricFamily extends Disposable {
  /** Kind. */
  readonly kind: MetricKind;
  /** Prometheus name. */
  readonly name: string;
  /** Help text. */
  readonly description: string;
  /** Default histogram buckets. */
  readonly buckets: readonly number[] | undefined;
  /** Whether {@link dispose} ran. */
  readonly disposed: boolean;
  /**
   * One metric of the family, for one label set (`TRITONSERVER_MetricNew`, or
   * `TRITONSERVER_MetricNewWithArgs` with `TRITONSERVER_MetricArgsSetHistogram` for histograms).
   * Two metrics with the same labels share one value.
   * @param labels label name (`[a-zA-Z_][a-zA-Z0-9_]*`) → value.
   * @param options.buckets histogram bucket bounds, instead of the family's.
   * @throws {TritonError} INVALID_ARG for bad labels or buckets, or a histogram without buckets
   *   (before any C call); UNAVAILABLE after `dispose()`; Triton's error.
   */
  metric(
    labels?: Readonly<Record<string, string>>,
    options?: { readonly buckets?: readonly number[] },
  ): Metric;
  /**
   * Deletes the family's metrics that are still alive (`TRITONSERVER_MetricDelete`), then the
   * family (`TRITONSERVER_MetricFamilyDelete`). Safe to call twice.
   * @throws {TritonError} the first error Triton reported (everything is deleted regardless).
   */
  dispose(): void;
}

/**
 * One metric of a {@link MetricFamily} (a family and a label set), made by
 * {@link MetricFamily.metric}, owning its `TRITONSERVER_Metric` until disposed (by itself or by its
 * family). Methods that do not fit the kind throw UNSUPPORTED before any C call.
 */
export interface Metric extends Disposable {
  /** The family it belongs to. */
  readonly family: MetricFamily;
  /** Its labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** Whether it was disposed. */
  readonly disposed: boolean;
  /**
   * Adds `value` (default 1) (`TRITONSERVER_MetricIncrement`). Counters: `value` >= 0; gauges:
   * any number.
   * @throws {TritonError} INVALID_ARG for a negative counter increment; UNSUPPORTED for
   *   histograms; UNAVAILABLE once disposed.
   */
  increment(value?: number): void;
  /**
   * Sets a gauge (`TRITONSERVER_MetricSet`).
   * @throws {TritonError} UNSUPPORTED for counters and histograms; UNAVAILABLE once disposed.
   */
  set(value: number): void;
  /**
   * Records one observation in a histogram (`TRITONSERVER_MetricObserve`).
   * @throws {TritonError} UNSUPPORTED for counters and gauges; UNAVAILABLE once disposed.
   */
  observe(value: number): void;
  /**
   * The current value of a counter or gauge (`TRITONSERVER_MetricValue`).
   * @throws {TritonError} UNSUPPORTED for histograms; UNAVAILABLE once disposed.
   */
  value(): number;
  /** Deletes the metric (`TRITONSERVER_MetricDelete`). Safe to call twice.
   * @throws {TritonError} Triton's error (the metric counts as deleted regardless). */
  dispose(): void;
}

/**
 * @internal The {@link MetricFamily} {@link Server.metricFamily} makes: holds the library and the
 * `TRITONSERVER_MetricFamily*`, and the metrics made from it.
 */
export class NativeMetricFamily implements MetricFamily {
  /** Kind. */
  readonly kind: MetricKind;
  /** Prometheus name. */
  readonly name: string;
  /** Help text. */
  readonly description: string;
  /** Default histogram buckets. */
  readonly buckets: readonly number[] | undefined;
  readonly #lib: TritonLibrary;
  #family: Ptr | undefined;
  readonly #metrics = new Set<NativeMetric>();

  /**
   * Creates the family (`TRITONSERVER_MetricFamilyNew`).
   * @throws {TritonError} INVALID_ARG for a bad kind, name or buckets (before any C call);
   *   UNSUPPORTED on a core built without metrics; INVALID_ARG from Triton when the name is
   *   taken by a family of another kind or description.
   */
  constructor(lib: TritonLibrary, options: MetricFamilyOptions) {
    if (options === null || typeof options !== "object") invalid("metric family needs options");
    const { kind, name, description, buckets } = options;
    if (typeof kind !== "string" || !Object.hasOwn(kindCodes, kind)) {
      invalid(`metric kind must be "counter", "gauge" or "histogram", not ${describeValue(kind)}`);
    }
    if (typeof name !== "string" || !METRIC_NAME.test(name)) {
      invalid(`metric name must match [a-zA-Z_:][a-zA-Z0-9_:]*, not ${JSON.stringify(name)}`);
    }
    if (typeof description !== "string" || description.includes("\0")) {
      invalid("metric description must be a string");
    }
    if (buckets !== undefined && kind !== "histogram") invalid("only histograms have buckets");
    this.kind = kind;
    this.name = name;
    this.description = description;
    this.buckets = buckets === undefined ? undefined : checkBuckets(buckets);
    this.#lib = lib;
    const out = new BigUint64Array(1);
    check(lib, lib.api.TRITONSERVER_MetricFamilyNew(out, kindCodes[kind], name, description));
    this.#family = lib.ffi.fromAddress(out[0]);
  }

  /** Whether {@link dispose} ran. */
  get disposed(): boolean {
    return this.#family === undefined;
  }

  /**
   * One metric of the family, for one label set (`TRITONSERVER_MetricNew`, or
   * `TRITONSERVER_MetricNewWithArgs` with `TRITONSERVER_MetricArgsSetHistogram` for histograms).
   * Two metrics with the same labels share one value.
   * @param labels label name (`[a-zA-Z_][a-zA-Z0-9_]*`) → value.
   * @param options.buckets histogram bucket bounds, instead of the family's.
   * @throws {TritonError} INVALID_ARG for bad labels or buckets, or a histogram without buckets
   *   (before any C call); UNAVAILABLE after `dispose()`; Triton's error.
   */
  metric(
    labels: Readonly<Record<string, string>> = {},
    options: { readonly buckets?: readonly number[] } = {},
  ): Metric {
    const family = this.#live();
    expectRecord("labels", labels, "an object of label name → value");
    expectRecord("metric()'s options", options, "{ buckets? }");
    for (const [k, v] of Object.entries(labels)) {
      if (!LABEL_NAME.test(k) || k.startsWith("__")) {
        invalid(`label name must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __, not ${k}`);
      }
      if (typeof v !== "string" || v.includes("\0")) invalid(`label '${k}' must be a string`);
    }
    let buckets: readonly number[] | undefined;
    if (options.buckets !== undefined) {
      if (this.kind !== "histogram") invalid("only histograms have buckets");
      buckets = checkBuckets(options.buckets);
    } else if (this.kind === "histogram") {
      buckets = this.buckets ?? invalid(`histogram '${this.name}' needs buckets`);
    }
    const lib = this.#lib;
    const { api, ffi } = lib;
    const params = new ParameterList(lib);
    const out = new BigUint64Array(1);
    try {
      for (const [k, v] of Object.entries(labels)) params.string(k, v);
      const array = params.array();
      if (buckets === undefined) {
        check(lib, api.TRITONSERVER_MetricNew(out, family, array, BigInt(params.length)));
      } else {
        const argsOut = new BigUint64Array(1);
        check(lib, api.TRITONSERVER_MetricArgsNew(argsOut));
        const args = ffi.fromAddress(argsOut[0]);
        try {
          const bounds = Float64Array.from(buckets);
          check(
            lib,
            api.TRITONSERVER_MetricArgsSetHistogram(args, bounds, BigInt(bounds.length)),
          );
          check(
            lib,
            api.TRITONSERVER_MetricNewWithArgs(out, family, array, BigInt(params.length), args),
          );
        } finally {
          discard(lib, api.TRITONSERVER_MetricArgsDelete(args));
        }
      }
    } finally {
      params.dispose();
    }
    const metric = new NativeMetric(
      lib,
      this,
      ffi.fromAddress(out[0]),
      Object.freeze({ ...labels }),
      {
        forget: (m) => this.#metrics.delete(m),
      },
    );
    this.#metrics.add(metric);
    return metric;
  }

  #live(): Ptr {
    if (this.#family === undefined) {
      throw new TritonError("UNAVAILABLE", `metric family '${this.name}' is disposed`);
    }
    return this.#family;
  }

  /**
   * Deletes the family's metrics that are still alive (`TRITONSERVER_MetricDelete`), then the
   * family (`TRITONSERVER_MetricFamilyDelete`). Safe to call twice.
   * @throws {TritonError} the first error Triton reported (everything is deleted regardless).
   */
  dispose(): void {
    if (this.#family === undefined) return;
    let first: unknown;
    for (const m of [...this.#metrics]) {
      try {
        m.dispose();
      } catch (e) {
        first ??= e;
      }
    }
    const family = this.#family;
    this.#family = undefined;
    try {
      check(this.#lib, this.#lib.api.TRITONSERVER_MetricFamilyDelete(family));
    } catch (e) {
      first ??= e;
    }
    if (first !== undefined) throw first;
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** @internal The {@link Metric} {@link NativeMetricFamily.metric} makes: holds the library and
 * the `TRITONSERVER_Metric*`. */
export class NativeMetric implements Metric {
  /** The family it belongs to. */
  readonly family: MetricFamily;
  /** Its labels. */
  readonly labels: Readonly<Record<string, string>>;
  readonly #lib: TritonLibrary;
  #metric: Ptr | undefined;
  readonly #owner: { forget(m: NativeMetric): void };

  constructor(
    lib: TritonLibrary,
    family: MetricFamily,
    metric: Ptr,
    labels: Readonly<Record<string, string>>,
    owner: { forget(m: NativeMetric): void },
  ) {
    this.#lib = lib;
    this.family = family;
    this.#metric = metric;
    this.labels = labels;
    this.#owner = owner;
  }

  /** Whether it was disposed. */
  get disposed(): boolean {
    return this.#metric === undefined;
  }

  #live(op: string, kinds: readonly MetricKind[], ...value: unknown[]): Ptr {
    if (this.#metric === undefined) {
      throw new TritonError("UNAVAILABLE", `metric of '${this.family.name}' is disposed`);
    }
    if (!kinds.includes(this.family.kind)) {
      throw new TritonError("UNSUPPORTED", `a ${this.family.kind} does not support ${op}`);
    }
    if (value.length > 0 && (typeof value[0] !== "number" || Number.isNaN(value[0]))) {
      throw invalidArgument(`${op}()'s value`, "a number (not NaN)", value[0]);
    }
    return this.#metric;
  }

  /**
   * Adds `value` (default 1) (`TRITONSERVER_MetricIncrement`). Counters: `value` >= 0; gauges:
   * any number.
   * @throws {TritonError} INVALID_ARG for a negative counter increment; UNSUPPORTED for
   *   histograms; UNAVAILABLE once disposed.
   */
  increment(value = 1): void {
    const m = this.#live("increment", ["counter", "gauge"], value);
    if (this.family.kind === "counter" && value < 0) {
      invalid(`a counter only goes up; cannot increment by ${value}`);
    }
    check(this.#lib, this.#lib.api.TRITONSERVER_MetricIncrement(m, value));
  }

  /**
   * Sets a gauge (`TRITONSERVER_MetricSet`).
   * @throws {TritonError} UNSUPPORTED for counters and histograms; UNAVAILABLE once disposed.
   */
  set(value: number): void {
    const m = this.#live("set", ["gauge"], value);
    check(this.#lib, this.#lib.api.TRITONSERVER_MetricSet(m, value));
  }

  /**
   * Records one observation in a histogram (`TRITONSERVER_MetricObserve`).
   * @throws {TritonError} UNSUPPORTED for counters and gauges; UNAVAILABLE once disposed.
   */
  observe(value: number): void {
    const m = this.#live("observe", ["histogram"], value);
    check(this.#lib, this.#lib.api.TRITONSERVER_MetricObserve(m, value));
  }

  /**
   * The current value of a counter or gauge (`TRITONSERVER_MetricValue`).
   * @throws {TritonError} UNSUPPORTED for histograms; UNAVAILABLE once disposed.
   */
  value(): number {
    const m = this.#live("value", ["counter", "gauge"]);
    const out = new Float64Array(1);
    check(this.#lib, this.#lib.api.TRITONSERVER_MetricValue(m, out));
    return out[0];
  }

  /** Deletes the metric (`TRITONSERVER_MetricDelete`). Safe to call twice.
   * @throws {TritonError} Triton's error (the metric counts as deleted regardless). */
  dispose(): void {
    const m = this.#metric;
    if (m === undefined) return;
    this.#metric = undefined;
    this.#owner.forget(this);
    check(this.#lib, this.#lib.api.TRITONSERVER_MetricDelete(m));
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
