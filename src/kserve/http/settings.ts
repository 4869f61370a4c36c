/**
 * The logging and trace extensions over HTTP: `GET`/`POST /v2/logging` and
 * `GET`/`POST /v2/trace/setting`, `/v2/models/{name}/trace/setting`, their JSON read into the
 * plain values of `../settings.ts` and answered as `tritonserver` does (trace settings as strings
 * and lists of strings).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import type { Server } from "../../server.ts";
import { readBody, type SizeLimit } from "./body.ts";
import { errorResponse } from "./errors.ts";
import { invalid } from "../errors.ts";
import { cText, describe, type Json, parseJson, record } from "../json.ts";
import type { RestrictedCategory } from "../restricted.ts";
import {
  logSettings,
  type LogSettingValue,
  traceSettingsOf,
  type TraceSettingValue,
  updateLogSettings,
  updateTraceSettings,
} from "../settings.ts";
import type { TraceManager } from "../trace_manager.ts";

/** A POST body: an object, an empty body an empty one. */
async function body(
  request: Request,
  limit: SizeLimit,
  what: string,
): Promise<Record<string, Json>> {
  const bytes = await readBody(request, limit);
  return bytes.byteLength === 0 ? {} : record(parseJson(bytes, what), `the ${what} request`);
}

/** A log setting's JSON value as the plain value (objects and arrays refused, naming it). */
function logValue(name: string, value: Json): LogSettingValue {
  if (value !== null && typeof value === "object") {
    invalid(`log setting '${name}' must be a boolean, number or string, not ${describe(value)}`);
  }
  return value;
}

/** A trace setting's JSON value: a string, a list of strings, or null. */
function traceValue(name: string, value: Json): TraceSettingValue {
  if (value === null) return null;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  invalid(`expect a string or a list of strings for '${name}', got ${describe(value)}`);
}

/** Trace settings as `tritonserver` answers them over HTTP: the level a list, the others strings. */
function traceJson(settings: Record<string, string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(settings)) out[k] = k === "trace_level" ? v : v.join(",");
  return out;
}

const JSON_TYPE = { "content-type": "application/json" };
const json = (value: unknown) => new Response(JSON.stringify(value), { headers: JSON_TYPE });

/**
 * Registers the routes on `app`, each behind `guard` ("logging", "trace"); another method is 405.
 */
export function settingsRoutes(
  app: Hono,
  guard: (category: RestrictedCategory, request: Request) => Response | undefined,
  server: Server,
  traces: TraceManager,
  limit: SizeLimit,
): void {
  const route = (
    path: string,
    category: RestrictedCategory,
    handler: (c: Context) => Response | Promise<Response>,
  ) => {
    app.on(["GET", "POST"], path, (c) => guard(category, c.req.raw) ?? handler(c));
    app.all(path, () => errorResponse(405, "Method Not Allowed"));
  };
  route("/v2/logging", "logging", async (c) => {
    if (c.req.method === "GET") return json(logSettings(server));
    const update: Record<string, LogSettingValue> = {};
    for (const [k, v] of Object.entries(await body(c.req.raw, limit, "log settings"))) {
      update[k] = logValue(k, v);
    }
    return json(updateLogSettings(server, update));
  });
  const trace = async (c: Context, model: string) => {
    if (c.req.method === "GET") return json(traceJson(traceSettingsOf(server, traces, model)));
    const update: Record<string, TraceSettingValue> = {};
    for (const [k, v] of Object.entries(await body(c.req.raw, limit, "trace settings"))) {
      update[k] = traceValue(k, v);
    }
    return json(traceJson(updateTraceSettings(server, traces, model, update)));
  };
  route("/v2/trace/setting", "trace", (c) => trace(c, ""));
  route(
    "/v2/models/:name/trace/setting",
    "trace",
    (c) => trace(c, cText(c.req.param("name")!, "the model name")),
  );
}
