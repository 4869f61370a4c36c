/**
 * Checks a `ServerOptions` record and turns it into the list of `TRITONSERVER_ServerOptions*`
 * setter calls to make. Nothing here calls C: a bad value throws before the first call.
 *
 * @module
 */
import {
  env,
  InstanceGroupKind,
  LogFormat,
  ModelControlMode,
  type Ptr,
  RateLimitMode,
  type TritonLibrary,
} from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import type { LogOptions, ServerOptions } from "./options.ts";

/** One setter call on a `TRITONSERVER_ServerOptions*`; returns the `TRITONSERVER_Error*`, or
 * undefined where it made no call (a default the core, of API minor version `apiMinor`, predates). */
export type OptionSetter = (
  api: TritonLibrary["api"],
  opts: Ptr,
  apiMinor: number,
) => Ptr | undefined;

/**
 * Options that Triton's `TRITONSERVER_ServerOptions` leaves uninitialised (its constructor gives
 * them no value, so the core reads whatever the heap held: a model that fails to load was seen
 * retried without end), with the defaults of `tritonserver`'s command line, which always sets
 * them. The binding sets each unless the option is given, where the core has the setter (the API
 * minor version it came with).
 */
export const UNINITIALISED_DEFAULTS = {
  /** `--model-load-retry-count`. */
  modelLoadRetryCount: { value: 0, since: 28 },
  /** `--enable-peer-access`. */
  enablePeerAccess: { value: true, since: 32 },
} as const;

const U32_MAX = 0xffffffff;
const I32_MAX = 0x7fffffff;
const U64_MAX = 0xffffffffffffffffn;

function fail(message: string): never {
  throw new TritonError("INVALID_ARG", `ServerOptions: ${message}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Option names of earlier releases → what to give instead. */
const RENAMED: Readonly<Record<string, string>> = {
  exitTimeout: "exitTimeoutSecs",
  logFile: "log.file",
  logInfo: "log.info",
  logWarn: "log.warn",
  logError: "log.error",
  logVerbose: "log.verbose",
  logFormat: "log.format",
};

function known(where: string, o: Record<string, unknown>, keys: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (keys.includes(k)) continue;
    const instead = !where && Object.hasOwn(RENAMED, k) ? ` (give ${RENAMED[k]} instead)` : "";
    fail(`unknown option ${where ? `${where}.` : ""}${k}${instead}`);
  }
}

function bool(name: string, v: unknown): boolean | undefined {
  if (v !== undefined && typeof v !== "boolean") fail(`${name} must be a boolean, not ${show(v)}`);
  return v;
}

function str(name: string, v: unknown, allowEmpty = false): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || (!allowEmpty && v === "") || v.includes("\0")) {
    fail(`${name} must be a non-empty string, not ${show(v)}`);
  }
  return v;
}

function int(name: string, v: unknown, min: number, max: number, unit = ""): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    fail(`${name} must be a whole number${unit} in [${min}, ${max}], not ${show(v)}`);
  }
  return v;
}

function bytes(name: string, v: unknown): bigint {
  const b = typeof v === "bigint"
    ? v
    : typeof v === "number" && Number.isSafeInteger(v)
    ? BigInt(v)
    : -1n;
  if (b < 0n || b > U64_MAX) fail(`${name} must be a byte count >= 0, not ${show(v)}`);
  return b;
}

function setting(name: string, v: unknown): string {
  if (typeof v === "string" || typeof v === "boolean") return String(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return fail(`${name} must be a string, number or boolean, not ${show(v)}`);
}

function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  return typeof v === "object" ? "an object" : String(v);
}

function record(name: string, v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) fail(`${name} must be an object, not ${show(v)}`);
  return v;
}

function deviceIds(name: string, v: unknown): [number, bigint][] {
  const r = record(name, v) ?? {};
  return Object.entries(r).map(([k, size]) => {
    if (!/^\d+$/.test(k) || Number(k) > I32_MAX) fail(`${name} keys must be GPU ids, not ${k}`);
    return [Number(k), bytes(`${name}[${k}]`, size)];
  });
}

const TOP_LEVEL = [
  "modelRepository",
  "serverId",
  "backendDirectory",
  "backendConfig",
  "repoAgentDirectory",
  "modelControlMode",
  "startupModels",
  "strictModelConfig",
  "modelConfigName",
  "modelNamespacing",
  "modelLoadThreadCount",
  "modelLoadRetryCount",
  "modelLoadDeviceLimit",
  "exitOnError",
  "strictReadiness",
  "exitTimeoutSecs",
  "rateLimiter",
  "memory",
  "cache",
  "bufferManagerThreadCount",
  "minSupportedComputeCapability",
  "enablePeerAccess",
  "hostPolicy",
  "metrics",
  "log",
] as const;

const controlModes = {
  none: ModelControlMode.NONE,
  poll: ModelControlMode.POLL,
  explicit: ModelControlMode.EXPLICIT,
} as const;

const rateLimitModes = {
  off: RateLimitMode.OFF,
  execution_count: RateLimitMode.EXEC_COUNT,
} as const;

/** The `log` group, checked for unknown fields. */
function logSettings(o: ServerOptions): LogOptions {
  const group = record("log", o.log) ?? {};
  known("log", group, ["file", "info", "warn", "error", "verbose", "format"]);
  return group as LogOptions;
}

/** `exitTimeoutSecs`, checked; undefined when not given. */
function exitTimeoutGiven(o: ServerOptions): number | undefined {
  return int("exitTimeoutSecs", o.exitTimeoutSecs, 0, U32_MAX, " of seconds");
}

/**
 * Seconds `Server.stop()` waits for in-flight work: `exitTimeoutSecs`, else Triton's default of
 * 30.
 * @throws {TritonError} INVALID_ARG as `planServerOptions` would.
 */
export function exitTimeoutSecs(o: ServerOptions): number {
  return exitTimeoutGiven(o) ?? 30;
}

/**
 * Validates `o` and returns the setter calls that apply it, in order.
 * @throws {TritonError} INVALID_ARG naming the first bad or unknown option.
 */
export function planServerOptions(o: ServerOptions): OptionSetter[] {
  if (!isRecord(o)) fail("options must be an object");
  known("", o, TOP_LEVEL);
  const plan: OptionSetter[] = [];

  const repos = typeof o.modelRepository === "string" ? [o.modelRepository] : o.modelRepository;
  if (
    !Array.isArray(repos) || repos.length === 0 ||
    repos.some((r) => typeof r !== "string" || !r || r.includes("\0"))
  ) {
    fail("modelRepository must be a non-empty path or list of paths");
  }
  for (const repo of repos as string[]) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetModelRepositoryPath(p, repo));
  }

  const serverId = str("serverId", o.serverId);
  if (serverId !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetServerId(p, serverId));
  }

  const backendDir = str("backendDirectory", o.backendDirectory) ??
    env("TRITONSERVER_BACKEND_DIR");
  if (backendDir) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetBackendDirectory(p, backendDir));
  }
  for (
    const [backend, settings] of Object.entries(record("backendConfig", o.backendConfig) ?? {})
  ) {
    for (const [key, value] of Object.entries(record(`backendConfig.${backend}`, settings) ?? {})) {
      const text = setting(`backendConfig.${backend}.${key}`, value);
      plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetBackendConfig(p, backend, key, text));
    }
  }
  const agentDir = str("repoAgentDirectory", o.repoAgentDirectory);
  if (agentDir !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetRepoAgentDirectory(p, agentDir));
  }

  const mode = o.modelControlMode ?? "none";
  if (typeof mode !== "string" || !Object.hasOwn(controlModes, mode)) {
    fail(`modelControlMode must be "none", "poll" or "explicit", not ${show(mode)}`);
  }
  plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetModelControlMode(p, controlModes[mode]));
  if (o.startupModels !== undefined) {
    if (mode !== "explicit") fail('startupModels needs modelControlMode: "explicit"');
    if (!Array.isArray(o.startupModels)) fail("startupModels must be a list of model names");
    for (const m of o.startupModels) {
      const name = str("startupModels[]", m)!;
      plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetStartupModel(p, name));
    }
  }
  // Auto-complete by default, as tritonserver's command line (the C API's default is strict).
  const strict = bool("strictModelConfig", o.strictModelConfig) ?? false;
  plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetStrictModelConfig(p, strict));
  const configName = str("modelConfigName", o.modelConfigName);
  if (configName !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetModelConfigName(p, configName));
  }
  const namespacing = bool("modelNamespacing", o.modelNamespacing);
  if (namespacing !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetModelNamespacing(p, namespacing));
  }
  const loadThreads = int("modelLoadThreadCount", o.modelLoadThreadCount, 1, U32_MAX);
  if (loadThreads !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetModelLoadThreadCount(p, loadThreads));
  }
  const retries = int("modelLoadRetryCount", o.modelLoadRetryCount, 0, U32_MAX);
  const retryDefault = UNINITIALISED_DEFAULTS.modelLoadRetryCount;
  plan.push((api, p, minor) =>
    retries === undefined && minor < retryDefault.since
      ? undefined
      : api.TRITONSERVER_ServerOptionsSetModelLoadRetryCount(p, retries ?? retryDefault.value)
  );
  if (o.modelLoadDeviceLimit !== undefined) {
    if (!Array.isArray(o.modelLoadDeviceLimit)) {
      fail('modelLoadDeviceLimit must be a list of { kind: "gpu", device, fraction }');
    }
    o.modelLoadDeviceLimit.forEach((limit, i) => {
      const where = `modelLoadDeviceLimit[${i}]`;
      const l = record(where, limit) ?? fail(`${where} must be an object`);
      known(where, l, ["kind", "device", "fraction"]);
      if (l.kind !== "gpu") fail(`${where}.kind must be "gpu", not ${show(l.kind)}`);
      const device = int(`${where}.device`, l.device, 0, I32_MAX)!;
      if (device === undefined) fail(`${where}.device is required`);
      const fraction = l.fraction;
      if (typeof fraction !== "number" || !(fraction >= 0 && fraction <= 1)) {
        fail(`${where}.fraction must be a number in [0, 1], not ${show(fraction)}`);
      }
      plan.push((api, p) =>
        api.TRITONSERVER_ServerOptionsSetModelLoadDeviceLimit(
          p,
          InstanceGroupKind.GPU,
          device,
          fraction,
        )
      );
    });
  }
  const exitOnError = bool("exitOnError", o.exitOnError);
  if (exitOnError !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetExitOnError(p, exitOnError));
  }
  const strictReady = bool("strictReadiness", o.strictReadiness);
  if (strictReady !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetStrictReadiness(p, strictReady));
  }
  const exitTimeout = exitTimeoutGiven(o);
  if (exitTimeout !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetExitTimeout(p, exitTimeout));
  }

  planRateLimiter(o, plan);
  planMemory(o, plan);
  planCache(o, plan);
  const bufferThreads = int("bufferManagerThreadCount", o.bufferManagerThreadCount, 0, U32_MAX);
  if (bufferThreads !== undefined) {
    plan.push((api, p) =>
      api.TRITONSERVER_ServerOptionsSetBufferManagerThreadCount(p, bufferThreads)
    );
  }
  const cc = o.minSupportedComputeCapability;
  if (cc !== undefined) {
    if (typeof cc !== "number" || !Number.isFinite(cc) || cc < 0) {
      fail(`minSupportedComputeCapability must be a number >= 0, not ${show(cc)}`);
    }
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetMinSupportedComputeCapability(p, cc));
  }
  const peer = bool("enablePeerAccess", o.enablePeerAccess);
  const peerDefault = UNINITIALISED_DEFAULTS.enablePeerAccess;
  plan.push((api, p, minor) =>
    peer === undefined && minor < peerDefault.since
      ? undefined
      : api.TRITONSERVER_ServerOptionsSetEnablePeerAccess(p, peer ?? peerDefault.value)
  );
  for (const [policy, settings] of Object.entries(record("hostPolicy", o.hostPolicy) ?? {})) {
    const s = record(`hostPolicy.${policy}`, settings) ?? {};
    known(`hostPolicy.${policy}`, s, ["numa-node", "cpu-cores"]);
    for (const [key, value] of Object.entries(s)) {
      const text = setting(`hostPolicy.${policy}.${key}`, value);
      plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetHostPolicy(p, policy, key, text));
    }
  }
  planMetrics(o, plan);
  plan.push(...planLogOptions(logSettings(o)));
  return plan;
}

function planRateLimiter(o: ServerOptions, plan: OptionSetter[]): void {
  const rl = record("rateLimiter", o.rateLimiter);
  if (!rl) return;
  known("rateLimiter", rl, ["mode", "resources"]);
  if (rl.mode !== undefined) {
    if (typeof rl.mode !== "string" || !Object.hasOwn(rateLimitModes, rl.mode)) {
      fail(`rateLimiter.mode must be "off" or "execution_count", not ${show(rl.mode)}`);
    }
    const mode = rateLimitModes[rl.mode as keyof typeof rateLimitModes];
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetRateLimiterMode(p, mode));
  }
  if (rl.resources === undefined) return;
  if (!Array.isArray(rl.resources)) fail("rateLimiter.resources must be a list");
  rl.resources.forEach((resource: unknown, i: number) => {
    const where = `rateLimiter.resources[${i}]`;
    const r = record(where, resource) ?? fail(`${where} must be an object`);
    known(where, r, ["name", "count", "device"]);
    const name = str(`${where}.name`, r.name) ?? fail(`${where}.name is required`);
    const count = int(`${where}.count`, r.count, 0, Number.MAX_SAFE_INTEGER) ??
      fail(`${where}.count is required`);
    const device = int(`${where}.device`, r.device, -1, I32_MAX) ?? -1;
    plan.push((api, p) =>
      api.TRITONSERVER_ServerOptionsAddRateLimiterResource(p, name, BigInt(count), device)
    );
  });
}

function planMemory(o: ServerOptions, plan: OptionSetter[]): void {
  const m = record("memory", o.memory);
  if (!m) return;
  known("memory", m, ["pinnedPoolByteSize", "cudaPoolByteSize", "cudaVirtualAddressSize"]);
  if (m.pinnedPoolByteSize !== undefined) {
    const size = bytes("memory.pinnedPoolByteSize", m.pinnedPoolByteSize);
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetPinnedMemoryPoolByteSize(p, size));
  }
  for (const [gpu, size] of deviceIds("memory.cudaPoolByteSize", m.cudaPoolByteSize)) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetCudaMemoryPoolByteSize(p, gpu, size));
  }
  for (const [gpu, size] of deviceIds("memory.cudaVirtualAddressSize", m.cudaVirtualAddressSize)) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetCudaVirtualAddressSize(p, gpu, size));
  }
}

function planCache(o: ServerOptions, plan: OptionSetter[]): void {
  const c = record("cache", o.cache);
  if (!c) return;
  known("cache", c, ["directory", "config"]);
  const dir = str("cache.directory", c.directory);
  if (dir !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetCacheDirectory(p, dir));
  }
  for (const [name, config] of Object.entries(record("cache.config", c.config) ?? {})) {
    let json: string;
    if (typeof config === "string") {
      try {
        JSON.parse(config);
      } catch {
        fail(`cache.config.${name} is not valid JSON`);
      }
      json = config;
    } else {
      json = JSON.stringify(record(`cache.config.${name}`, config));
    }
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetCacheConfig(p, name, json));
  }
}

function planMetrics(o: ServerOptions, plan: OptionSetter[]): void {
  const m = record("metrics", o.metrics);
  if (!m) return;
  known("metrics", m, ["enabled", "gpu", "cpu", "intervalMs", "config"]);
  const enabled = bool("metrics.enabled", m.enabled);
  if (enabled !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetMetrics(p, enabled));
  }
  const gpu = bool("metrics.gpu", m.gpu);
  if (gpu !== undefined) plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetGpuMetrics(p, gpu));
  const cpu = bool("metrics.cpu", m.cpu);
  if (cpu !== undefined) plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetCpuMetrics(p, cpu));
  const interval = int("metrics.intervalMs", m.intervalMs, 1, Number.MAX_SAFE_INTEGER, " of ms");
  if (interval !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetMetricsInterval(p, BigInt(interval)));
  }
  for (const [key, value] of Object.entries(record("metrics.config", m.config) ?? {})) {
    const text = setting(`metrics.config.${key}`, value);
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetMetricsConfig(p, "", key, text));
  }
}

/**
 * @internal The setters of log options (`log.file`, `info`, `warn`, `error`, `verbose`,
 * `format`), each checked; also what changes Triton's process-wide logger while a server runs.
 * @throws {TritonError} INVALID_ARG naming a bad option, before any C call.
 */
export function planLogOptions(log: LogOptions): OptionSetter[] {
  const plan: OptionSetter[] = [];
  const file = str("log.file", log.file, true);
  if (file !== undefined) plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogFile(p, file));
  const info = bool("log.info", log.info);
  if (info !== undefined) plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogInfo(p, info));
  const warn = bool("log.warn", log.warn);
  if (warn !== undefined) plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogWarn(p, warn));
  const error = bool("log.error", log.error);
  if (error !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogError(p, error));
  }
  const verbose = int("log.verbose", log.verbose, 0, I32_MAX);
  if (verbose !== undefined) {
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogVerbose(p, verbose));
  }
  if (log.format !== undefined) {
    if (log.format !== "default" && log.format !== "iso8601") {
      fail(`log.format must be "default" or "iso8601", not ${show(log.format)}`);
    }
    const format = log.format === "iso8601" ? LogFormat.ISO8601 : LogFormat.DEFAULT;
    plan.push((api, p) => api.TRITONSERVER_ServerOptionsSetLogFormat(p, format));
  }
  return plan;
}
