/**
 * The logging and trace extensions over HTTP: `GET`/`POST /v2/logging` and
 * `GET`/`POST /v2/trace/setting`, `/v2/models/{name}/trace/setting`, their JSON read into the
 * plain values of `../log_trace_settings.ts` and answered as `tritonserver` does (trace settings
 * as strings and lists of strings).
 *
 * @module
 */
import type { Context } from "hono";
import { readJsonObject } from "../../common/body.ts";
import { invalid } from "../../common/refusals.ts";
import { describe, type Json } from "../../common/json.ts";
import { type Handler, modelName, type RouteLine, type Served } from "./routing.ts";
import {
  logSettings,
  type LogSettingValue,
  traceSettingsOf,
  type TraceSettingValue,
} from "../log_trace_settings.ts";
import type { TraceSettingsValue } from "../trace_manager.ts";
import { Op } from "../protocol_state.ts";

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

const logging: Handler = async ({ server, limits, changes }, c) => {
  if (c.req.method === "GET") return json(logSettings(server));
  const update: Record<string, LogSettingValue> = {};
  const body = await readJsonObject(c.req.raw, limits.json, "log settings");
  for (const [k, v] of Object.entries(body)) update[k] = logValue(k, v);
  return json(await changes.change(Op.LOG_UPDATE, [update]));
};

/** The trace settings of `model` ("" for the global ones), changed first on a POST. */
async function trace(s: Served, c: Context, model: string): Promise<Response> {
  const { server, traces } = s;
  if (c.req.method === "GET") return json(traceJson(traceSettingsOf(server, traces, model)));
  const update: Record<string, TraceSettingValue> = {};
  const body = await readJsonObject(c.req.raw, s.limits.json, "trace settings");
  for (const [k, v] of Object.entries(body)) update[k] = traceValue(k, v);
  const settings = await s.changes.change(Op.TRACE_UPDATE, [model, update]);
  return json(traceJson(settings as TraceSettingsValue));
}
const globalTrace: Handler = (s, c) => trace(s, c, "");
const modelTrace: Handler = (s, c) => trace(s, c, modelName(c));

const BOTH = ["GET", "POST"] as const;

/** The routes of the logging and trace extensions, one a line (GET reads, POST changes). */
export const SETTINGS_ROUTES: readonly RouteLine[] = [
  [BOTH, ["/v2/logging"], "logging", logging],
  [BOTH, ["/v2/trace/setting"], "trace", globalTrace],
  [BOTH, ["/v2/models/:name/trace/setting"], "trace", modelTrace],
];
