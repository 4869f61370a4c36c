/**
 * The logging and trace extensions on plain values, for both protocols: log settings (Triton's
 * process-wide logger, changed at once through the core's `TRITONSERVER_ServerOptionsSetLog*`)
 * and trace settings (the service's {@link TraceManager}), each checked here once so that HTTP and
 * gRPC answer a bad value with the same code and message. As in `tritonserver`, neither the log
 * file nor the trace file can be changed over the protocol (UNSUPPORTED).
 *
 * @module
 */
import { describeValue } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { LogOptions } from "../../src/options.ts";
import type { Server } from "../../src/server.ts";
import { invalid, unsupported } from "../common/refusals.ts";
import {
  badLogFormat,
  expectKind,
  expectOneValue,
  fileNotUpdatable,
  outOfRange,
  traceCountBelow,
  traceModeOnlyTriton,
  unableToParse,
  unknownModel,
} from "../common/tritonserver_words.ts";
import {
  checkTracing,
  parseLevel,
  type TraceManager,
  type TraceSettingsValue,
  type TraceUpdate,
} from "./trace_manager.ts";

/** The log settings, `tritonserver`'s names and values. */
export interface LogSettings {
  /** The log file, `""` for stderr. */
  readonly log_file: string;
  readonly log_info: boolean;
  readonly log_warning: boolean;
  readonly log_error: boolean;
  readonly log_verbose_level: number;
  /** `"default"` or `"ISO8601"`. */
  readonly log_format: "default" | "ISO8601";
}

/** A log setting as a protocol carries it; null (or a gRPC value with no choice) changes nothing. */
export type LogSettingValue = boolean | number | bigint | string | null;

const LOG_FIELDS = [
  "log_file",
  "log_info",
  "log_warning",
  "log_error",
  "log_verbose_level",
  "log_format",
] as const;
const I32_MAX = 2 ** 31 - 1;

/** The log settings of `server`: the log options in force as it set them (its `log` options,
 * as updated since), in `tritonserver`'s names and defaults.
 * @throws {TritonError} UNAVAILABLE when the server is not running. */
export function logSettings(server: Server): LogSettings {
  const log = server.logOptions();
  return {
    log_file: log.file ?? "",
    log_info: log.info ?? true,
    log_warning: log.warn ?? true,
    log_error: log.error ?? true,
    log_verbose_level: log.verbose ?? 0,
    log_format: log.format === "iso8601" ? "ISO8601" : "default",
  };
}

function logBoolean(field: string, value: LogSettingValue): boolean {
  if (typeof value !== "boolean") {
    invalid(expectKind("boolean", field, describeValue(value)));
  }
  return value;
}

/**
 * Checks every field of `update`, then applies them to Triton's logger at once; answers the
 * settings after.
 * @throws {TritonError} INVALID_ARG naming the field for an unknown field or a bad value (nothing
 *   applied then); UNSUPPORTED for `log_file` (as `tritonserver`: not over the protocol);
 *   UNAVAILABLE when the server is not running.
 */
export function updateLogSettings(
  server: Server,
  update: Readonly<Record<string, LogSettingValue>>,
): LogSettings {
  logSettings(server); // UNAVAILABLE before anything is checked when the server is not running
  const change: { -readonly [K in keyof LogOptions]: LogOptions[K] } = {};
  for (const [field, value] of Object.entries(update)) {
    if (!(LOG_FIELDS as readonly string[]).includes(field)) {
      invalid(`unknown log setting '${field}' (one of ${LOG_FIELDS.join(", ")})`);
    }
    if (value === null) continue;
    switch (field) {
      case "log_file":
        unsupported(fileNotUpdatable("log file"));
        break;
      case "log_info":
        change.info = logBoolean(field, value);
        break;
      case "log_warning":
        change.warn = logBoolean(field, value);
        break;
      case "log_error":
        change.error = logBoolean(field, value);
        break;
      case "log_verbose_level": {
        const n = typeof value === "bigint" ? Number(value) : value;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > I32_MAX) {
          invalid(
            `expect an integer in [0, ${I32_MAX}] for 'log_verbose_level', got ${
              describeValue(value)
            }`,
          );
        }
        change.verbose = n;
        break;
      }
      case "log_format":
        if (typeof value !== "string") {
          invalid(expectKind("string", "log_format", describeValue(value)));
        }
        if (value !== "default" && value !== "ISO8601") {
          invalid(`${badLogFormat(value)} (default or ISO8601)`);
        }
        change.format = value === "ISO8601" ? "iso8601" : "default";
        break;
    }
  }
  server.updateLog(change);
  return logSettings(server);
}

/** A trace setting as a protocol carries it: a list of strings; null or an empty list clears it. */
export type TraceSettingValue = readonly string[] | null;

const TRACE_NUMBERS = {
  trace_rate: { field: "rate", min: 0, max: 2 ** 32 - 1 },
  trace_count: { field: "count", min: -1, max: I32_MAX },
  log_frequency: { field: "logFrequency", min: 0, max: 2 ** 32 - 1 },
} as const;
const TRACE_FIELDS = ["trace_level", ...Object.keys(TRACE_NUMBERS), "trace_file", "trace_mode"];

/** The one number of `name`'s `values` (tritonserver's messages).
 * @throws {TritonError} INVALID_ARG. */
function traceNumber(name: keyof typeof TRACE_NUMBERS, values: readonly string[]): number {
  const { min, max } = TRACE_NUMBERS[name];
  if (values.length !== 1) invalid(expectOneValue(name));
  const text = values[0];
  if (!/^[+-]?[0-9]+$/.test(text.trim())) invalid(unableToParse(name, text));
  const n = Number(text);
  if (name === "trace_count" && n < min) {
    invalid(traceCountBelow(min, text));
  }
  if (n < min || n > max) {
    invalid(outOfRange(name, min, max, text));
  }
  return n;
}

/** Checks `model` (ready, as `tritonserver` asks) for a per-model setting.
 * @throws {TritonError} INVALID_ARG for a model that is not ready. */
function checkModel(server: Server, model: string): void {
  if (model === "") return;
  let ready = false;
  try {
    ready = server.modelReady(model);
  } catch (e) {
    if (e instanceof TritonError && e.code === "UNAVAILABLE") throw e;
  }
  if (!ready) invalid(unknownModel(model));
}

/** The trace settings in force for `model` ("" for the global ones).
 * @throws {TritonError} INVALID_ARG for a model that is not ready. */
export function traceSettingsOf(
  server: Server,
  traces: TraceManager,
  model: string,
): TraceSettingsValue {
  checkModel(server, model);
  return traces.settings(model);
}

/**
 * Checks every field of `update`, then updates the settings of `model` ("" for the global ones);
 * answers the settings after.
 * @throws {TritonError} INVALID_ARG naming the field for a bad or unknown one, a model that is not
 *   ready, or settings that would trace without a rate or a file; UNSUPPORTED for `trace_file`
 *   (as `tritonserver`: the service's `trace.file` option sets it) or tracing on a core built
 *   without it.
 */
export function updateTraceSettings(
  server: Server,
  traces: TraceManager,
  model: string,
  update: Readonly<Record<string, TraceSettingValue>>,
): TraceSettingsValue {
  checkModel(server, model);
  const change: { -readonly [K in keyof TraceUpdate]: TraceUpdate[K] } = {};
  for (const [name, values] of Object.entries(update)) {
    if (!TRACE_FIELDS.includes(name)) {
      invalid(`unknown trace setting '${name}' (one of ${TRACE_FIELDS.join(", ")})`);
    }
    const clear = values === null || values.length === 0;
    if (name === "trace_file") {
      unsupported(fileNotUpdatable("trace file"));
    } else if (name === "trace_mode") {
      if (!clear && (values.length !== 1 || values[0] !== "triton")) {
        invalid(traceModeOnlyTriton(values.join(",")));
      }
    } else if (name === "trace_level") {
      change.level = clear ? null : parseLevel(values);
    } else {
      const n = name as keyof typeof TRACE_NUMBERS;
      change[TRACE_NUMBERS[n].field] = clear ? null : traceNumber(n, values);
    }
  }
  if (change.level) checkTracing(server);
  traces.update(model, change);
  return traces.settings(model);
}
