/**
 * The logging and trace extensions over gRPC: `LogSettings` and `TraceSetting`, their messages
 * read into the plain values of `../log_trace_settings.ts` and answered as `tritonserver` does.
 *
 * @module
 */
import {
  type LogSettings,
  logSettings,
  type LogSettingValue,
  traceSettingsOf,
  type TraceSettingValue,
} from "../log_trace_settings.ts";
import { Op } from "../protocol_state.ts";
import type { Message, Rpc } from "./rpc.ts";

/** A `LogSettingsRequest.SettingValue`'s choice; none set: null (no change). */
function logValue(value: Message): LogSettingValue {
  if (value.bool_param !== undefined) return value.bool_param as boolean;
  if (value.uint32_param !== undefined) return value.uint32_param as number;
  if (value.string_param !== undefined) return value.string_param as string;
  return null;
}

/** The log settings as a `LogSettingsResponse`. */
function logMessage(s: LogSettings): Message {
  return {
    settings: {
      log_file: { string_param: s.log_file },
      log_info: { bool_param: s.log_info },
      log_warning: { bool_param: s.log_warning },
      log_error: { bool_param: s.log_error },
      log_verbose_level: { uint32_param: s.log_verbose_level },
      log_format: { string_param: s.log_format },
    },
  };
}

/** LogSettings: the log settings, changed first (for the whole service) where the request gives
 * any. */
export const logSettingsRpc: Rpc = async ({ server, changes }, m) => {
  const settings = (m.settings ?? {}) as Record<string, Message>;
  const keys = Object.keys(settings);
  if (keys.length === 0) return logMessage(logSettings(server));
  const update: Record<string, LogSettingValue> = {};
  for (const k of keys) update[k] = logValue(settings[k]);
  return logMessage(await changes.change(Op.LOG_UPDATE, [update]) as LogSettings);
};

/** TraceSetting: the trace settings of a model ("" for the global ones), changed first (for the
 * whole service) where the request gives any. */
export const traceSettingRpc: Rpc = async ({ server, traces, changes }, m) => {
  const model = (m.model_name as string | undefined) ?? "";
  const settings = (m.settings ?? {}) as Record<string, { value?: string[] }>;
  const keys = Object.keys(settings);
  const answer = (s: Record<string, string[]>) => ({
    settings: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, { value: v }])),
  });
  if (keys.length === 0) return answer(traceSettingsOf(server, traces, model));
  const update: Record<string, TraceSettingValue> = {};
  for (const k of keys) update[k] = settings[k].value ?? [];
  return answer(
    await changes.change(Op.TRACE_UPDATE, [model, update]) as Record<string, string[]>,
  );
};
