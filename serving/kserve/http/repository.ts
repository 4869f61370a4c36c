/**
 * The model repository extension over HTTP: `POST /v2/repository/index`, `.../models/{name}/load`
 * and `.../models/{name}/unload`, their JSON bodies read into the arguments of
 * `../operations.ts`.
 *
 * @module
 */
import type { Server } from "../../../src/server.ts";
import { invalid } from "../../common/refusals.ts";
import { parameterValue } from "../inference.ts";
import { boolean, type JsonRecord, record } from "../../common/json.ts";
import {
  type CallParameter,
  repositoryIndex,
  repositoryLoad,
  repositoryUnload,
} from "../operations.ts";

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

/** A body's `parameters`: strings, numbers and booleans; a `file:` parameter's base64 text is
 * the file's bytes. */
function parameters(json: JsonRecord): Record<string, CallParameter> {
  const out: Record<string, CallParameter> = {};
  if (json.parameters === undefined) return out;
  for (const [key, raw] of Object.entries(record(json.parameters, "'parameters'"))) {
    const what = `parameter '${key}'`;
    const value = parameterValue(raw, what);
    out[key] = key.startsWith("file:") && typeof value === "string"
      ? decodeBase64(value, what)
      : value;
  }
  return out;
}

/**
 * The repository index as KServe's HTTP protocol sends it: `[{ name, version?, state?, reason? }]`,
 * versions as strings. Body: `{ "ready": boolean }` (optional) to list only the models ready for
 * inference.
 * @throws {TritonError} INVALID_ARG for a malformed body; as {@link repositoryIndex}.
 */
export function repositoryIndexJson(
  server: Server,
  json: JsonRecord,
  repository: string | undefined,
): string {
  const readyOnly = json.ready === undefined ? false : boolean(json.ready, "'ready'");
  return JSON.stringify(
    repositoryIndex(server, readyOnly, repository).map((m) => ({
      name: m.name,
      ...(m.version === undefined ? {} : { version: String(m.version) }),
      ...(m.state === undefined ? {} : { state: m.state }),
      ...(m.reason === undefined ? {} : { reason: m.reason }),
    })),
  );
}

/**
 * Loads or unloads a model. Body (`json`, the request's JSON; optional): `{ "parameters": { ... } }`: for a load `config`
 * (the model configuration as JSON text) and `file:<path>` (base64 file content); for an unload
 * `unload_dependents` (boolean).
 * @throws {TritonError} INVALID_ARG for a malformed body; as {@link repositoryLoad} and
 *   {@link repositoryUnload}.
 */
export async function repositoryAction(
  server: Server,
  action: "load" | "unload",
  name: string,
  json: JsonRecord,
  repository: string | undefined,
): Promise<void> {
  const params = parameters(json);
  if (action === "load") await repositoryLoad(server, name, params, repository);
  else await repositoryUnload(server, name, params, repository);
}
