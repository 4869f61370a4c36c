/**
 * Writing to Triton's log (`TRITONSERVER_LogIsEnabled`, `TRITONSERVER_LogMessage`). Triton's
 * logger is process-wide; the `log` server options configure it.
 *
 * @module
 */
import { describeValue } from "./value_checks.ts";
import { checkCString, LogLevel, type TritonLibrary } from "../ffi/mod.ts";
import { type LogOptions, optionsFromPlan } from "./options.ts";
import { planLogOptions } from "./options_plan.ts";
import { check, discard, TritonError } from "./errors.ts";

/** A Triton log level. */
export type LogLevelName = "info" | "warn" | "error" | "verbose";

const levels = {
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  verbose: LogLevel.VERBOSE,
} as const;

function code(level: LogLevelName): number {
  if (typeof level !== "string" || !Object.hasOwn(levels, level)) {
    throw new TritonError(
      "INVALID_ARG",
      `log level must be "info", "warn", "error" or "verbose", not ${describeValue(level)}`,
    );
  }
  return levels[level];
}

/**
 * @internal Whether Triton logs messages of `level` (`TRITONSERVER_LogIsEnabled`; `"verbose"`
 * means verbose level 1 or more).
 * @throws {TritonError} INVALID_ARG for an unknown level.
 */
export function logEnabled(lib: TritonLibrary, level: LogLevelName): boolean {
  return lib.api.TRITONSERVER_LogIsEnabled(code(level));
}

/**
 * @internal Writes `message` to Triton's log at `level` (`TRITONSERVER_LogMessage`), attributed to
 * `file`:`line` (default `"tritonffi"`:0), when that level is enabled.
 * @returns whether the level was enabled (and the message written).
 * @throws {TritonError} INVALID_ARG for an unknown level, a bad line or a NUL in the text;
 *   Triton's error.
 */
export function logMessage(
  lib: TritonLibrary,
  level: LogLevelName,
  message: string,
  file = "tritonffi",
  line = 0,
): boolean {
  const lvl = code(level);
  if (typeof message !== "string") {
    throw new TritonError("INVALID_ARG", "log message and file must be strings without NUL");
  }
  // Refused even when the level is disabled (and nothing reaches C).
  checkCString(message);
  checkCString(file);
  if (!Number.isInteger(line) || line < 0 || line > 0x7fffffff) {
    throw new TritonError(
      "INVALID_ARG",
      `log line must be an integer >= 0, not ${describeValue(line)}`,
    );
  }
  if (!lib.api.TRITONSERVER_LogIsEnabled(lvl)) return false;
  check(lib, lib.api.TRITONSERVER_LogMessage(lvl, file, line, message));
  return true;
}

/**
 * @internal Applies `update` (log options, as `Server`'s `log` takes them) to Triton's logger
 * while the server runs. Triton's logger is process-wide and its `TRITONSERVER_ServerOptionsSetLog*`
 * setters change it at once, so a throwaway `ServerOptions` carries the calls and is deleted after.
 * @throws {TritonError} INVALID_ARG for a bad option; Triton's error (UNSUPPORTED on a core built
 *   without logging).
 */
export function applyLogUpdate(lib: TritonLibrary, update: LogOptions): void {
  const opts = optionsFromPlan(lib, planLogOptions(update));
  discard(lib, lib.api.TRITONSERVER_ServerOptionsDelete(opts));
}
