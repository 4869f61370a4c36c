/**
 * Finds, opens, version-checks and pins `libtritonserver.so`.
 *
 * Search order: a path given (`loadTriton(path)`, else `$TRITONSERVER_LIB`) is the only one tried;
 * without one, `/opt/tritonserver/lib/libtritonserver.so` (the Triton container), then
 * `libtritonserver.so` through the system loader. The library must report API
 * major version {@link API_VERSION}.major; functions newer than the library's minor version are
 * bound as stubs that throw.
 *
 * @module
 */
import { Binding, type TritonLibrary } from "./binding.ts";
import { API_VERSION } from "./enums.ts";
import { LIBC_PATH, libcSymbols, RTLD_NODELETE, RTLD_NOLOAD, RTLD_NOW } from "./libc.ts";
import { deniedEnv, env, ffiRuntime } from "./runtime.ts";
import { type SymbolDef, symbols } from "./symbols.ts";
import type { AsyncFns, FfiRuntime, NativeLibrary, OpenedLibrary, Ptr, SyncFns } from "./types.ts";

export type { TritonLibrary };

/** The default location of the library inside NVIDIA's Triton container. */
export const DEFAULT_LIBRARY_PATH = "/opt/tritonserver/lib/libtritonserver.so";

/** Thrown when no usable `libtritonserver.so` is found; `cause` holds the last loader error. */
export class LibraryLoadError extends Error {
  override name = "LibraryLoadError";
}

const versionOnly = {
  TRITONSERVER_ApiVersion: symbols.TRITONSERVER_ApiVersion,
} as const;

const loaded = new Map<string, Promise<TritonLibrary>>();

/**
 * Loads the Triton library once per process and path (later calls return the same library,
 * with the same {@link Binding}).
 * @param path A library path to use instead of the search order.
 * @throws {LibraryLoadError} listing every place tried and why each failed, or naming the
 *   version mismatch.
 */
export function loadTriton(path?: string): Promise<TritonLibrary> {
  const key = path ?? "";
  let lib = loaded.get(key);
  if (!lib) {
    lib = open(path).catch((e) => {
      loaded.delete(key);
      throw e;
    });
    loaded.set(key, lib);
  }
  return lib;
}

/** Where to look: a path the user gave (the argument, else `TRITONSERVER_LIB`) is the only one
 * tried; without one, the container's default and then the system loader. */
function candidates(explicit?: string): { path: string; origin: string }[] {
  if (explicit) return [{ path: explicit, origin: "the path given" }];
  const fromEnv = env("TRITONSERVER_LIB");
  if (fromEnv) return [{ path: fromEnv, origin: "TRITONSERVER_LIB" }];
  const list: { path: string; origin: string }[] = [];
  list.push({ path: DEFAULT_LIBRARY_PATH, origin: "the Triton container's default" });
  list.push({ path: "libtritonserver.so", origin: "the system loader" });
  return list;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function open(explicit?: string): Promise<TritonLibrary> {
  const ffi = await ffiRuntime();
  const tried: string[] = [];
  let lastError: unknown;
  for (const { path, origin } of candidates(explicit)) {
    let probe: OpenedLibrary<typeof versionOnly>;
    try {
      probe = ffi.open(path, versionOnly);
    } catch (e) {
      tried.push(`${path} (${origin}): ${message(e)}`);
      lastError = e;
      continue;
    }
    const version = apiVersion(ffi, probe);
    if (version.major !== API_VERSION.major) {
      throw new LibraryLoadError(
        `${path} implements Triton API ${version.major}.${version.minor}; ` +
          `tritonffi needs ${API_VERSION.major}.x`,
      );
    }
    return bind(ffi, path, version);
  }
  const denied = lastError instanceof Error && lastError.name === "NotCapable";
  // Deno asks one permission at a time: the hint names every one the binding needs.
  const hint = denied
    ? "Deno refused to load a library: run it with --allow-ffi --allow-env (the binding needs " +
      "both: ffi to call the library, env to read TRITONSERVER_LIB and its other settings)."
    : deniedEnv.has("TRITONSERVER_LIB")
    ? "TRITONSERVER_LIB could not be read: run Deno with --allow-env (as well as --allow-ffi)."
    : explicit
    ? "Only the path given was tried: pass the path of a libtritonserver.so."
    : env("TRITONSERVER_LIB")
    ? "Only TRITONSERVER_LIB was tried: correct it, or unset it to search " +
      `${DEFAULT_LIBRARY_PATH} and the system loader.`
    : "Set TRITONSERVER_LIB to the library's path.";
  throw new LibraryLoadError(
    `Cannot load libtritonserver.so. Tried:\n  ${tried.join("\n  ")}\n${hint}`,
    { cause: lastError },
  );
}

function apiVersion(
  ffi: FfiRuntime,
  lib: OpenedLibrary<typeof versionOnly>,
): { major: number; minor: number } {
  const major = new Uint32Array(1);
  const minor = new Uint32Array(1);
  const err = lib.sync.TRITONSERVER_ApiVersion(major, minor);
  if (!ffi.isNull(err)) {
    throw new LibraryLoadError(`${lib.path}: TRITONSERVER_ApiVersion failed`);
  }
  return { major: major[0], minor: minor[0] };
}

function bind(
  ffi: FfiRuntime,
  path: string,
  version: { major: number; minor: number },
): TritonLibrary {
  const available: Record<string, SymbolDef> = {};
  const missing: string[] = [];
  for (const [name, def] of Object.entries(symbols) as [string, SymbolDef][]) {
    if (def.since <= version.minor) available[name] = def;
    else missing.push(name);
  }
  const lib = ffi.open(path, available as typeof symbols);
  const libc = ffi.open(LIBC_PATH, libcSymbols);
  // Pin the library: the runtime unloading it while Triton's threads still run crashes at exit.
  libc.sync.dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  const stubs: Record<string, () => never> = {};
  for (const name of missing) {
    const since = (symbols as Record<string, SymbolDef>)[name].since;
    stubs[name] = () => {
      throw new Error(
        `${name} needs Triton API ${API_VERSION.major}.${since}; ` +
          `${path} implements ${version.major}.${version.minor}`,
      );
    };
  }
  const addressIn = (libPath: string, symbol: string): Ptr => {
    const handle = libc.sync.dlopen(libPath, RTLD_NOW);
    const address = ffi.isNull(handle) ? ffi.NULL : libc.sync.dlsym(handle, symbol);
    if (ffi.isNull(address)) throw new LibraryLoadError(`${symbol} not found in ${libPath}`);
    return address;
  };
  const native: NativeLibrary = {
    ffi,
    path,
    version,
    symbolAddress: (name: string) => addressIn(path, name),
    addressIn,
    api: { ...stubs, ...lib.sync } as SyncFns<typeof symbols>,
    apiAsync: { ...stubs, ...lib.async } as unknown as AsyncFns<typeof symbols>,
    libc: libc.sync,
  };
  return { ...native, binding: new Binding(native) };
}
