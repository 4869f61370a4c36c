/**
 * Request JSON: parsing with exact 64-bit integers, and the shape checks every JSON value goes
 * through before it is used, in the binding's vocabulary of kinds (src/value_checks.ts) and the
 * {@link WIRE} voice.
 *
 * @module
 */
import { parse as parseLossless } from "lossless-json";
import {
  ARRAY,
  BOOLEAN,
  called,
  checked,
  isRecord as isPlainRecord,
  RECORD,
  STRING,
  UNSIGNED,
  type Voice,
} from "../../src/value_checks.ts";
import { invalid } from "./refusals.ts";

/** A parsed JSON value; integers beyond 2^53 are `bigint` (see {@link parseJson}). */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonRecord = { [key: string]: Json };

/** How deep `data` arrays may nest (Triton's HTTP front end allows 100 levels too). */
export const MAX_JSON_DEPTH = 100;

const decoder = new TextDecoder();

/** A run of 16 digits: the only way to write an integer past 2^53 (9007199254740991). */
const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;

function exactNumber(token: string): number | bigint {
  if (INTEGER.test(token)) {
    const n = Number(token);
    return Number.isSafeInteger(n) ? n : BigInt(token);
  }
  return Number(token);
}

/**
 * Parses UTF-8 JSON. Integers that a double cannot hold exactly (beyond ±2^53) come out as
 * `bigint`: the text is parsed with `JSON.parse`, or, when it holds a run of 16 or more digits,
 * with lossless-json.
 * @param what names the document in the error message (e.g. "inference request").
 * @throws {TritonError} INVALID_ARG when the text is not JSON.
 */
export function parseJson(bytes: Uint8Array, what: string): Json {
  try {
    // Inside the try: a text past the runtime's longest string is refused here too.
    const text = decoder.decode(bytes);
    return LONG_DIGITS.test(text)
      ? parseLossless(text, null, exactNumber) as Json
      : JSON.parse(text) as Json;
  } catch (e) {
    invalid(`failed to parse the ${what} JSON: ${e instanceof Error ? e.message : e}`);
  }
}

/** Whether `value` is a JSON object (not an array, not null): the binding's `isRecord`, typed for
 * JSON. */
export const isRecord = isPlainRecord as (value: Json | undefined) => value is JsonRecord;

/** The voice of the wire-value checks: `TritonError` INVALID_ARG (HTTP 400, gRPC
 * INVALID_ARGUMENT) naming the value as `what` says it, what it got as {@link describe} says. */
export const WIRE: Voice = {
  name: (what) => what,
  describe: (value) => describe(value as Json | undefined),
  refuse: (message) => invalid(message),
};

const JSON_OBJECT = called(RECORD, "a JSON object");
const JSON_ARRAY = called(ARRAY, "a JSON array");

/** `value` as a JSON object.
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function record(value: Json | undefined, what: string): JsonRecord {
  return checked(WIRE, JSON_OBJECT, what, value) as JsonRecord;
}

/** `value` as a string that can be passed to Triton (no NUL character, which would end a C
 * string early and make it name something else).
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function string(value: Json | undefined, what: string): string {
  return withoutNul(checked(WIRE, STRING, what, value), what);
}

/** `text`, checked to hold no NUL character (see {@link string}).
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function withoutNul(text: string, what: string): string {
  if (text.includes("\0")) invalid(`${what} must not contain a NUL character`);
  return text;
}

/** `value` as a boolean.
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function boolean(value: Json | undefined, what: string): boolean {
  return checked(WIRE, BOOLEAN, what, value);
}

/** `value` as an unsigned integer (a `bigint` past 2^53).
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function unsigned(value: Json | undefined, what: string): number | bigint {
  return checked(WIRE, UNSIGNED, what, value);
}

/** `value` as an array.
 * @throws {TritonError} INVALID_ARG naming `what` otherwise. */
export function array(value: Json | undefined, what: string): Json[] {
  return checked(WIRE, JSON_ARRAY, what, value) as Json[];
}

/**
 * The leaves of a (possibly nested) `data` array, row-major, at most {@link MAX_JSON_DEPTH}
 * levels deep. A flat array is returned as it is.
 * @throws {TritonError} INVALID_ARG when it nests too deep.
 */
export function flatten(data: Json[], what: string): Json[] {
  if (!data.some(Array.isArray)) return data;
  const out: Json[] = [];
  const walk = (level: Json[], depth: number): void => {
    if (depth >= MAX_JSON_DEPTH) {
      invalid(`${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    for (const v of level) {
      if (Array.isArray(v)) walk(v, depth + 1);
      else out.push(v);
    }
  };
  walk(data, 1);
  return out;
}

/** A short description of a JSON value for error messages. */
export function describe(value: Json | undefined): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return String(value);
}
