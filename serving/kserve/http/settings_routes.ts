/**
 * The logging and trace extensions over HTTP: `GET`/`POST /v2/logging` and
 * `GET`/`POST /v2/trace/setting`, `/v2/models/{name}/trace/setting`, their JSON read into the
 * plain values of `../settings.ts` and answered as `tritonserver` does (trace settings as strings
 * and lists of strings).
 *
 * @module
 */
import type { Context } from "hono";
import type { Server } from "../../../src/server.ts";
import { readJsonObject, type SizeLimit } from "../../common/body.ts";
import { invalid } from "../../common/refusals.ts";
import { describe, type Json, withoutNul } from "../../common/json.ts";
import type { Route } from "./handler.ts";
import {
  logSettings,
  type LogSettingValue,
  traceSettingsOf,
  type TraceSettingValue,
  updateLogSettings,
  updateTraceSettings,
} from "../log_trace_settings.ts";
import type { TraceManager } from "../trace_manager.ts";

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

/** Registers the routes with `route` (GET and POST each; "logging" and "trace"). */
export function settingsRoutes(
  route: Route,
  server: Server,
  traces: TraceManager,
  limit: SizeLimit,
): void {
  const both = ["GET", "POST"] as const;
  route(both, ["/v2/logging"], "logging", async (c) => {
    if (c.req.method === "GET") return json(logSettings(server));
    const update: Record<string, LogSettingValue> = {};
    for (const [k, v] of Object.entries(await readJsonObject(c.req.raw, limit, "log settings"))) {
      update[k] = logValue(k, v);
    }
    return json(updateLogSettings(server, update));
  });
  const trace = async (c: Context, model: string) => {
    if (c.req.method === "GET") return json(traceJson(traceSettingsOf(server, traces, model)));
    const update: Record<string, TraceSettingValue> = {};
    for (const [k, v] of Object.entries(await readJsonObject(c.req.raw, limit, "trace settings"))) {
      update[k] = traceValue(k, v);
    }
    return json(traceJson(updateTraceSettings(server, traces, model, update)));
  };
  route(both, ["/v2/trace/setting"], "trace", (c) => trace(c, ""));
  route(
    both,
    ["/v2/models/:name/trace/setting"],
    "trace",
    (c) => trace(c, withoutNul(c.req.param("name")!, "the model name")),
  );
}
