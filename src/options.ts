/**
 * `ServerOptions`: the typed record a `Server` is started with, and its translation into a
 * `TRITONSERVER_ServerOptions` object.
 *
 * @module
 */
import { LogFormat, ModelControlMode } from "../ffi/enums.ts";
import type { TritonLibrary } from "../ffi/loader.ts";
import { env } from "../ffi/runtime.ts";
import type { Ptr } from "../ffi/types.ts";
import { check, TritonError } from "./errors.ts";

/** Options of an in-process Triton server. Every field but `modelRepository` is optional. */
export interface ServerOptions {
  /** Model repository path(s) (`TRITONSERVER_ServerOptionsSetModelRepositoryPath`). */
  readonly modelRepository: string | readonly string[];
  /** Backend directory (`TRITONSERVER_ServerOptionsSetBackendDirectory`). Default:
   * `$TRITONSERVER_BACKEND_DIR`, else Triton's own default (`/opt/tritonserver/backends`). */
  readonly backendDirectory?: string;
  /** Repository agent directory (`TRITONSERVER_ServerOptionsSetRepoAgentDirectory`). */
  readonly repoAgentDirectory?: string;
  /** Model control mode (`TRITONSERVER_ServerOptionsSetModelControlMode`). Default `"none"`. */
  readonly modelControlMode?: "none" | "poll" | "explicit";
  /** Models to load at start in `"explicit"` mode; `"*"` loads all
   * (`TRITONSERVER_ServerOptionsSetStartupModel`). */
  readonly startupModels?: readonly string[];
  /** Require a complete config.pbtxt (`TRITONSERVER_ServerOptionsSetStrictModelConfig`). */
  readonly strictModelConfig?: boolean;
  /** Fail start when a model fails to load (`TRITONSERVER_ServerOptionsSetExitOnError`). */
  readonly exitOnError?: boolean;
  /** Ready only when every model is ready (`TRITONSERVER_ServerOptionsSetStrictReadiness`). */
  readonly strictReadiness?: boolean;
  /** Seconds `stop()` waits for in-flight work (`TRITONSERVER_ServerOptionsSetExitTimeout`). */
  readonly exitTimeout?: number;
  /** Log file path (`TRITONSERVER_ServerOptionsSetLogFile`); stderr when omitted. */
  readonly logFile?: string;
  /** Log info messages (`TRITONSERVER_ServerOptionsSetLogInfo`). */
  readonly logInfo?: boolean;
  /** Log warnings (`TRITONSERVER_ServerOptionsSetLogWarn`). */
  readonly logWarn?: boolean;
  /** Log errors (`TRITONSERVER_ServerOptionsSetLogError`). */
  readonly logError?: boolean;
  /** Verbose log level, 0 = off (`TRITONSERVER_ServerOptionsSetLogVerbose`). */
  readonly logVerbose?: number;
  /** Log line format (`TRITONSERVER_ServerOptionsSetLogFormat`). */
  readonly logFormat?: "default" | "iso8601";
}

const controlModes = {
  none: ModelControlMode.NONE,
  poll: ModelControlMode.POLL,
  explicit: ModelControlMode.EXPLICIT,
} as const;

function fail(message: string): never {
  throw new TritonError("INVALID_ARG", `ServerOptions: ${message}`);
}

function validate(o: ServerOptions): string[] {
  if (o === null || typeof o !== "object") fail("options must be an object");
  const repos = typeof o.modelRepository === "string" ? [o.modelRepository] : o.modelRepository;
  if (
    !Array.isArray(repos) || repos.length === 0 || repos.some((r) => typeof r !== "string" || !r)
  ) {
    fail("modelRepository must be a non-empty path or list of paths");
  }
  if (o.modelControlMode !== undefined && !(o.modelControlMode in controlModes)) {
    fail(`modelControlMode must be "none", "poll" or "explicit", not ${o.modelControlMode}`);
  }
  if (o.startupModels && o.modelControlMode !== "explicit") {
    fail('startupModels needs modelControlMode: "explicit"');
  }
  if (
    o.exitTimeout !== undefined && (!Number.isInteger(o.exitTimeout) || o.exitTimeout < 0)
  ) fail(`exitTimeout must be a whole number of seconds >= 0, not ${o.exitTimeout}`);
  if (o.logVerbose !== undefined && (!Number.isInteger(o.logVerbose) || o.logVerbose < 0)) {
    fail(`logVerbose must be an integer >= 0, not ${o.logVerbose}`);
  }
  if (o.logFormat !== undefined && o.logFormat !== "default" && o.logFormat !== "iso8601") {
    fail(`logFormat must be "default" or "iso8601", not ${o.logFormat}`);
  }
  return repos as string[];
}

/**
 * Creates a `TRITONSERVER_ServerOptions` for `o`. The caller deletes it
 * (`TRITONSERVER_ServerOptionsDelete`); on error it is deleted here.
 * @throws {TritonError} INVALID_ARG for a bad option, before any C call.
 */
export function createServerOptions(lib: TritonLibrary, o: ServerOptions): Ptr {
  const repos = validate(o);
  const { api, ffi } = lib;
  const out = new BigUint64Array(1);
  check(lib, api.TRITONSERVER_ServerOptionsNew(out));
  const opts = ffi.fromAddress(out[0]);
  try {
    for (const repo of repos) {
      check(lib, api.TRITONSERVER_ServerOptionsSetModelRepositoryPath(opts, repo));
    }
    const backendDir = o.backendDirectory ?? env("TRITONSERVER_BACKEND_DIR");
    if (backendDir) check(lib, api.TRITONSERVER_ServerOptionsSetBackendDirectory(opts, backendDir));
    if (o.repoAgentDirectory) {
      check(lib, api.TRITONSERVER_ServerOptionsSetRepoAgentDirectory(opts, o.repoAgentDirectory));
    }
    check(
      lib,
      api.TRITONSERVER_ServerOptionsSetModelControlMode(
        opts,
        controlModes[o.modelControlMode ?? "none"],
      ),
    );
    for (const m of o.startupModels ?? []) {
      check(lib, api.TRITONSERVER_ServerOptionsSetStartupModel(opts, m));
    }
    if (o.strictModelConfig !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetStrictModelConfig(opts, o.strictModelConfig));
    }
    if (o.exitOnError !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetExitOnError(opts, o.exitOnError));
    }
    if (o.strictReadiness !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetStrictReadiness(opts, o.strictReadiness));
    }
    if (o.exitTimeout !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetExitTimeout(opts, o.exitTimeout));
    }
    if (o.logFile !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetLogFile(opts, o.logFile));
    }
    if (o.logInfo !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetLogInfo(opts, o.logInfo));
    }
    if (o.logWarn !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetLogWarn(opts, o.logWarn));
    }
    if (o.logError !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetLogError(opts, o.logError));
    }
    if (o.logVerbose !== undefined) {
      check(lib, api.TRITONSERVER_ServerOptionsSetLogVerbose(opts, o.logVerbose));
    }
    if (o.logFormat !== undefined) {
      check(
        lib,
        api.TRITONSERVER_ServerOptionsSetLogFormat(
          opts,
          o.logFormat === "iso8601" ? LogFormat.ISO8601 : LogFormat.DEFAULT,
        ),
      );
    }
    return opts;
  } catch (e) {
    api.TRITONSERVER_ServerOptionsDelete(opts);
    throw e;
  }
}
