/**
 * Model repository control: the repository index, explicit load and unload (with configuration
 * and file overrides), registering repositories, polling. Every call that may wait on Triton's
 * threads runs off the JS thread (`lib.apiAsync`).
 *
 * @module
 */
import { expectRecord, invalidArgument, knownFields, optionalBoolean } from "./value_checks.ts";
import { checkCString, ModelIndexFlag, type Ptr, type TritonLibrary } from "../ffi/mod.ts";
import { duration } from "./durations.ts";
import { check, TritonError } from "./errors.ts";
import { readJsonMessage } from "./message.ts";
import type { ModelConfigOverride } from "./model_config.ts";
import { ParameterList } from "./parameters.ts";

/** A model's state in the repository index (Triton's `ModelReadyState` names). */
export type ModelState = "UNKNOWN" | "READY" | "UNAVAILABLE" | "LOADING" | "UNLOADING";

/** One entry of the repository index (`TRITONSERVER_ServerModelIndex`). */
export interface ModelIndexEntry {
  /** Model name. */
  readonly name: string;
  /** Model version; absent for a model Triton has never tried to load. */
  readonly version?: number;
  /** State; absent for a model Triton has never tried to load. */
  readonly state?: ModelState;
  /** Why the model is in that state (e.g. `"unloaded"`, or the load error); absent when none. */
  readonly reason?: string;
}

/** Options of {@link loadModel}. */
export interface LoadModelOptions {
  /** A model configuration to use instead of the model's config.pbtxt, in Triton's JSON form
   * (`max_batch_size`, `input`, …); serialized to the `"config"` load parameter. It replaces the
   * whole configuration, as in Triton (nothing of config.pbtxt is merged): start from the one in
   * force, `{ ...model.config(), max_batch_size: 4 }`. */
  readonly config?: ModelConfigOverride;
  /** Model files by path relative to the model directory (e.g. `"1/model.py"`), each passed as
   * a BYTES load parameter `file:<path>`. Triton writes them to a temporary model directory;
   * needs `config`. */
  readonly files?: Readonly<Record<string, Uint8Array>>;
}

/** Options of {@link unloadModel}. */
export interface UnloadModelOptions {
  /** Also unload the models loaded with it, e.g. an ensemble's steps
   * (`TRITONSERVER_ServerUnloadModelAndDependents`). Default false. */
  readonly unloadDependents?: boolean;
  /** Wait until the repository index no longer shows the model READY or UNLOADING (Triton's
   * unload returns before in-flight requests finish). Default false. */
  readonly waitUntilUnloaded?: boolean;
  /** Milliseconds to wait with `waitUntilUnloaded` before failing UNAVAILABLE. Default 30000. */
  readonly timeoutMs?: number;
}

const states: readonly string[] = ["UNKNOWN", "READY", "UNAVAILABLE", "LOADING", "UNLOADING"];

function invalid(message: string): never {
  throw new TritonError("INVALID_ARG", message);
}

function modelName(name: unknown): string {
  if (typeof name !== "string" || name === "") {
    throw invalidArgument("the model name", "a non-empty string", name);
  }
  checkCString(name);
  return name;
}

/**
 * @internal The repository index (`TRITONSERVER_ServerModelIndex`): every model in the server's
 * repositories, or only the ready ones.
 * @throws {TritonError} Triton's error.
 */
export function modelIndex(lib: TritonLibrary, server: Ptr, readyOnly = false): ModelIndexEntry[] {
  const json = readJsonMessage(
    lib,
    (out) =>
      lib.api.TRITONSERVER_ServerModelIndex(server, readyOnly ? ModelIndexFlag.READY : 0, out),
  );
  if (!Array.isArray(json)) throw new TritonError("INTERNAL", "model index is not a JSON array");
  return json.map((raw: Record<string, unknown>) => {
    const entry: {
      name: string;
      version?: number;
      state?: ModelState;
      reason?: string;
    } = { name: String(raw.name) };
    if (raw.version !== undefined) entry.version = Number(raw.version);
    if (typeof raw.state === "string") {
      entry.state = (states.includes(raw.state) ? raw.state : "UNKNOWN") as ModelState;
    }
    if (typeof raw.reason === "string") entry.reason = raw.reason;
    return entry;
  });
}

/** Checks load options and builds the load parameters; nothing is created on a bad value. */
function loadParameters(lib: TritonLibrary, options: LoadModelOptions): ParameterList {
  expectRecord("loadModel()'s options", options, "{ config?, files? }");
  knownFields("loadModel()'s options", options as Record<string, unknown>, ["config", "files"]);
  const { config, files } = options;
  let configJson: string | undefined;
  if (config !== undefined) {
    expectRecord("config", config, "a model configuration object");
    try {
      configJson = JSON.stringify(config);
    } catch (e) {
      invalid(`config cannot be written as JSON: ${e instanceof Error ? e.message : e}`);
    }
  }
  if (files !== undefined) expectRecord("files", files, "an object of path → Uint8Array");
  const fileEntries = Object.entries(files ?? {});
  for (const [path, data] of fileEntries) {
    if (
      path === "" || path.startsWith("/") || path.includes("\0") ||
      path.split("/").some((part) => part === "..")
    ) {
      invalid(`file path '${path}' must be relative to the model directory, without '..'`);
    }
    if (!(data instanceof Uint8Array)) invalid(`file '${path}' must be a Uint8Array`);
  }
  if (fileEntries.length > 0 && configJson === undefined) {
    invalid("files need config: Triton loads in-memory files only with a config override");
  }
  const params = new ParameterList(lib);
  try {
    if (configJson !== undefined) params.string("config", configJson);
    for (const [path, data] of fileEntries) params.bytes(`file:${path}`, data);
    return params;
  } catch (e) {
    params.dispose();
    throw e;
  }
}

/**
 * What the binding can tell of a load that failed polling (Triton's "failed to load '<name>',
 * failed to poll from model repository"): Triton logs its reason ("Poll failed for model
 * directory …") and neither returns it nor keeps it in the repository index, so this names what
 * the index and the options show, and the causes a `config` has.
 */
function pollFailure(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  options: LoadModelOptions,
): string {
  const logged = `Triton's log has the reason: "Poll failed for model directory '${name}': …"`;
  let listed = true;
  try {
    listed = options.files !== undefined || modelIndex(lib, server).some((m) => m.name === name);
  } catch {
    // The index could not be read: say only what the options show.
  }
  if (!listed) return `no model directory '${name}' in the server's model repositories`;
  const { config } = options;
  if (config === undefined) {
    return `its config.pbtxt could not be read or is invalid, or two repositories hold it (${logged})`;
  }
  let why = "a config replaces the whole configuration (config.pbtxt is not read): give all " +
    "of it, e.g. { ...model.config(), max_batch_size: 4 }";
  if (config.backend === undefined && config.platform === undefined) {
    why += "; this one has neither backend nor platform, which Triton can tell only from the " +
      "model's files (model.py, model.onnx, …) or a name 'model.<backend>'";
  }
  return `${why} (${logged})`;
}

/**
 * @internal Loads or reloads a model (`TRITONSERVER_ServerLoadModelWithParameters`, off the JS
 * thread), resolving when it is loaded. Needs `modelControlMode: "explicit"`.
 * @throws {TritonError} INVALID_ARG for bad options (before any C call); Triton's error when the
 *   load fails (e.g. UNAVAILABLE when model control is not explicit, INVALID_ARG for a bad config),
 *   INTERNAL "failed to poll from model repository" with what the binding can tell of why.
 */
export async function loadModel(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  options: LoadModelOptions = {},
): Promise<void> {
  modelName(name);
  const params = loadParameters(lib, options);
  try {
    const array = params.array();
    check(
      lib,
      await lib.apiAsync.TRITONSERVER_ServerLoadModelWithParameters(
        server,
        name,
        array,
        BigInt(params.length),
      ),
    );
  } catch (e) {
    if (
      e instanceof TritonError && e.code === "INTERNAL" &&
      e.message.endsWith("failed to poll from model repository")
    ) {
      const why = pollFailure(lib, server, name, options);
      throw new TritonError(e.code, `${e.message}: ${why}`, { cause: e });
    }
    throw e;
  } finally {
    params.dispose();
  }
}

/**
 * @internal Unloads a model (`TRITONSERVER_ServerUnloadModel` or `…UnloadModelAndDependents`, off
 * the JS thread). Unloading a model that is not loaded succeeds.
 * @throws {TritonError} INVALID_ARG for a bad name; Triton's error; UNAVAILABLE when
 *   `waitUntilUnloaded` times out.
 */
export async function unloadModel(
  lib: TritonLibrary,
  server: Ptr,
  name: string,
  options: UnloadModelOptions = {},
): Promise<void> {
  modelName(name);
  expectRecord("unloadModel()'s options", options, "{ unloadDependents?, waitUntilUnloaded? }");
  knownFields(
    "unloadModel()'s options",
    options as Record<string, unknown>,
    ["unloadDependents", "waitUntilUnloaded", "timeoutMs"],
    { timeout: "timeoutMs (milliseconds)" },
  );
  optionalBoolean("unloadDependents", options.unloadDependents);
  optionalBoolean("waitUntilUnloaded", options.waitUntilUnloaded);
  const timeout = duration("timeoutMs", options.timeoutMs, "milliseconds", 30_000);
  const err = options.unloadDependents
    ? await lib.apiAsync.TRITONSERVER_ServerUnloadModelAndDependents(server, name)
    : await lib.apiAsync.TRITONSERVER_ServerUnloadModel(server, name);
  check(lib, err);
  if (!options.waitUntilUnloaded) return;
  const deadline = Date.now() + timeout;
  while (true) {
    const entry = modelIndex(lib, server).find((m) => m.name === name);
    if (!entry || (entry.state !== "READY" && entry.state !== "UNLOADING")) return;
    if (Date.now() > deadline) {
      throw new TritonError(
        "UNAVAILABLE",
        `model '${name}' still ${entry.state} after ${timeout} ms`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * @internal Adds a model repository to a running server
 * (`TRITONSERVER_ServerRegisterModelRepository`, off the JS thread). Needs
 * `modelControlMode: "explicit"`.
 * @param nameMapping model directory (in `path`) → the model name to serve it as.
 * @throws {TritonError} INVALID_ARG for a bad path or mapping; Triton's error (e.g. ALREADY_EXISTS).
 */
export async function registerModelRepository(
  lib: TritonLibrary,
  server: Ptr,
  path: string,
  nameMapping: Readonly<Record<string, string>> = {},
): Promise<void> {
  if (typeof path !== "string" || path === "") {
    invalid("repository path must be a non-empty string");
  }
  expectRecord("nameMapping", nameMapping, "an object of directory → model name");
  const entries = Object.entries(nameMapping);
  const seen = new Set<string>();
  for (const [dir, model] of entries) {
    if (typeof model !== "string" || model === "") {
      invalid(`nameMapping['${dir}'] must be a model name`);
    }
    if (seen.has(model)) invalid(`nameMapping maps two directories to model '${model}'`);
    seen.add(model);
  }
  const params = new ParameterList(lib);
  try {
    for (const [dir, model] of entries) params.string(dir, model);
    const array = params.array();
    check(
      lib,
      await lib.apiAsync.TRITONSERVER_ServerRegisterModelRepository(
        server,
        path,
        array,
        params.length,
      ),
    );
  } finally {
    params.dispose();
  }
}

/**
 * @internal Removes a repository added by {@link registerModelRepository}
 * (`TRITONSERVER_ServerUnregisterModelRepository`, off the JS thread).
 * @throws {TritonError} Triton's error (e.g. NOT_FOUND for a path that is not registered).
 */
export async function unregisterModelRepository(
  lib: TritonLibrary,
  server: Ptr,
  path: string,
): Promise<void> {
  if (typeof path !== "string" || path === "") {
    invalid("repository path must be a non-empty string");
  }
  check(lib, await lib.apiAsync.TRITONSERVER_ServerUnregisterModelRepository(server, path));
}

/**
 * @internal Rescans the repositories and loads, reloads or unloads models to match
 * (`TRITONSERVER_ServerPollModelRepository`, off the JS thread). Needs `modelControlMode: "poll"`.
 * @throws {TritonError} Triton's error (UNAVAILABLE when polling is not enabled).
 */
export async function pollModelRepository(lib: TritonLibrary, server: Ptr): Promise<void> {
  check(lib, await lib.apiAsync.TRITONSERVER_ServerPollModelRepository(server));
}
