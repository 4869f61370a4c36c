/**
 * The model repository extension: `POST /v2/repository/index`, `.../models/{name}/load` (with a
 * configuration and model files) and `.../models/{name}/unload`.
 *
 * @module
 */
import type { LoadModelOptions } from "../repository.ts";
import type { Server } from "../server.ts";
import { invalid } from "./errors.ts";
import { boolean, type Json, parseJson, record, string } from "./json.ts";

/** The request JSON of a repository endpoint; an empty body is an empty object. */
function body(bytes: Uint8Array, what: string): Record<string, Json> {
  return bytes.byteLength === 0 ? {} : record(parseJson(bytes, what), `the ${what} request`);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64 (the `file:` parameters of a load).
 * @throws {TritonError} INVALID_ARG for text that is not base64. */
export function decodeBase64(text: string, what: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) invalid(`${what} is not valid base64`);
  const binary = atob(clean);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * The repository index as KServe sends it: `[{ name, version?, state?, reason? }]`, versions as
 * strings. Body: `{ "ready": boolean }` (optional) to list only the models ready for inference.
 * @throws {TritonError} INVALID_ARG for a malformed body; Triton's error.
 */
export function repositoryIndex(server: Server, bytes: Uint8Array): string {
  const json = body(bytes, "repository index");
  const readyOnly = json.ready === undefined ? false : boolean(json.ready, "'ready'");
  return JSON.stringify(
    server.models({ readyOnly }).map((m) => ({
      name: m.name,
      ...(m.version === undefined ? {} : { version: String(m.version) }),
      ...(m.state === undefined ? {} : { state: m.state }),
      ...(m.reason === undefined ? {} : { reason: m.reason }),
    })),
  );
}

/**
 * Loads a model. Body (optional): `{ "parameters": { "config": "<model configuration as a JSON
 * string>", "file:<path>": "<base64 file content>", ... } }`.
 * @throws {TritonError} INVALID_ARG for a malformed body or an unknown parameter; Triton's load
 *   error.
 */
export async function repositoryLoad(
  server: Server,
  name: string,
  bytes: Uint8Array,
): Promise<void> {
  const json = body(bytes, "load model");
  const options: { config?: LoadModelOptions["config"]; files?: Record<string, Uint8Array> } = {};
  if (json.parameters !== undefined) {
    for (const [key, value] of Object.entries(record(json.parameters, "'parameters'"))) {
      if (key === "config") {
        const text = string(value, "parameter 'config'");
        let config: unknown;
        try {
          config = JSON.parse(text);
        } catch (e) {
          invalid(`parameter 'config' is not JSON: ${e instanceof Error ? e.message : e}`);
        }
        if (config === null || typeof config !== "object" || Array.isArray(config)) {
          invalid("parameter 'config' must be a JSON object");
        }
        options.config = config as LoadModelOptions["config"];
      } else if (key.startsWith("file:")) {
        (options.files ??= {})[key.slice(5)] = decodeBase64(
          string(value, `parameter '${key}'`),
          `parameter '${key}'`,
        );
      } else {
        invalid(`unknown load parameter '${key}' (expected 'config' or 'file:<path>')`);
      }
    }
  }
  await server.loadModel(name, options);
}

/**
 * Unloads a model. Body (optional): `{ "parameters": { "unload_dependents": boolean } }`.
 * @throws {TritonError} INVALID_ARG for a malformed body; Triton's error.
 */
export async function repositoryUnload(
  server: Server,
  name: string,
  bytes: Uint8Array,
): Promise<void> {
  const json = body(bytes, "unload model");
  let unloadDependents = false;
  if (json.parameters !== undefined) {
    const params = record(json.parameters, "'parameters'");
    if (params.unload_dependents !== undefined) {
      unloadDependents = boolean(params.unload_dependents, "parameter 'unload_dependents'");
    }
  }
  await server.unloadModel(name, { unloadDependents });
}
