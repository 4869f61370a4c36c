/**
 * One vocabulary for checking values, from users and off the wire, before any of them is used: a
 * {@link Kind} says what a value must be ("a string", "an integer in [0, 2]") and reads it; a
 * {@link Voice} says how a family of checks names the field, describes what it got, and refuses;
 * {@link checked} words every refusal the same way, `<field> must be <kind>, not <what it got>`.
 * A wrong kind is a clear error naming the field, never a `TypeError` from deeper in.
 *
 * The binding checks its users' values in the {@link USER} voice (`TritonError` INVALID_ARG, the
 * value described as `the string "12"`); the front ends' JSON checks (serving/common/json.ts) and
 * OpenAI's 400s (serving/openai/fields.ts) speak with voices of their own over the same kinds.
 *
 * @module
 */
import { TritonError } from "./errors.ts";

/** What a {@link Kind}'s `read` answers for a value that is not of the kind. */
export const NOT_OF_KIND: unique symbol = Symbol("not of the kind");

/** A kind of value: what it must be, in words, and how one is read (a `bigint` becoming a
 * number, say), {@link NOT_OF_KIND} when it is not one. */
export interface Kind<T> {
  /** What a value of the kind is, as a refusal says it: `"a string"`, `"an object"`. */
  readonly expected: string;
  read(value: unknown): T | typeof NOT_OF_KIND;
}

/** How a family of checks words and throws its refusals. */
export interface Voice {
  /** The field as a refusal names it (`temperature`, `'temperature'`). */
  name(field: string): string;
  /** What a value is, as a refusal says it. */
  describe(value: unknown): string;
  /** Throws `message`, the refusal of `field`. */
  refuse(message: string, field: string): never;
}

/** `value` read as `kind`.
 * @throws `voice`'s refusal, `<field> must be <kind>, not <value>`, when it is not one. */
export function checked<T>(voice: Voice, kind: Kind<T>, field: string, value: unknown): T {
  const read = kind.read(value);
  if (read === NOT_OF_KIND) {
    voice.refuse(
      `${voice.name(field)} must be ${kind.expected}, not ${voice.describe(value)}`,
      field,
    );
  }
  return read;
}

/** `value` read as `kind`, `undefined` when absent.
 * @throws `voice`'s refusal (see {@link checked}). */
export function optional<T>(
  voice: Voice,
  kind: Kind<T>,
  field: string,
  value: unknown,
): T | undefined {
  return value === undefined ? undefined : checked(voice, kind, field, value);
}

/** A kind whose values pass `test` as they are. */
function kindOf<T>(expected: string, test: (value: unknown) => boolean): Kind<T> {
  return { expected, read: (value) => test(value) ? value as T : NOT_OF_KIND };
}

/** `kind`, said as `expected` (`"a JSON object"`, `"{ timeoutMs?, waitUntilReady? }"`). */
export function called<T>(kind: Kind<T>, expected: string): Kind<T> {
  return { expected, read: kind.read };
}

/** Whether `value` is a plain record (an object that is not an array, TypedArray or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !ArrayBuffer.isView(value);
}

/** A string. */
export const STRING: Kind<string> = kindOf("a string", (v) => typeof v === "string");
/** A boolean. */
export const BOOLEAN: Kind<boolean> = kindOf("a boolean", (v) => typeof v === "boolean");
/** A plain record (see {@link isRecord}). */
export const RECORD: Kind<Record<string, unknown>> = kindOf("an object", isRecord);
/** An array. */
export const ARRAY: Kind<unknown[]> = kindOf("an array", Array.isArray);
/** An integer >= 0: a number, or a `bigint` up to 2^64 - 1. */
export const UNSIGNED: Kind<number | bigint> = kindOf(
  "an unsigned integer",
  (v) =>
    (typeof v === "number" && Number.isInteger(v) && v >= 0) ||
    (typeof v === "bigint" && v >= 0n && v <= 0xffffffffffffffffn),
);
/** A 64-bit signed integer: a safe integer number, or a `bigint` in range. */
export const INT64: Kind<number | bigint> = kindOf(
  "a 64-bit integer",
  (v) =>
    (typeof v === "number" && Number.isSafeInteger(v)) ||
    (typeof v === "bigint" && v >= -(2n ** 63n) && v <= 2n ** 63n - 1n),
);

/** An integer number in [`min`, `max`]. */
export function integerIn(min: number, max: number): Kind<number> {
  return kindOf(
    `an integer in [${min}, ${max}]`,
    (v) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max,
  );
}

/** A finite number in [`min`, `max`]; a `bigint` is read as the number nearest it. */
export function numberIn(min: number, max: number): Kind<number> {
  return {
    expected: `a number in [${min}, ${max}]`,
    read(value) {
      const n = typeof value === "bigint" ? Number(value) : value;
      return typeof n === "number" && Number.isFinite(n) && n >= min && n <= max ? n : NOT_OF_KIND;
    },
  };
}

/** What `value` is, for an error message: `undefined`, `null`, `the string "12"`,
 * `the number 5`, `a Float32Array`, `an array`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
    case "number":
    case "boolean":
      return `the ${typeof value} ${value}`;
    case "bigint":
      return `the bigint ${value}n`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
  }
  if (Array.isArray(value)) return "an array";
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)
    ?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? `a ${name}` : "an object";
}

/** The voice of the binding's checks of its users' values: `TritonError` INVALID_ARG naming the
 * field as it is given, the value as {@link describeValue} says it. */
export const USER: Voice = {
  name: (field) => field,
  describe: describeValue,
  refuse(message) {
    throw new TritonError("INVALID_ARG", message);
  },
};

/** INVALID_ARG: `field` must be `expected`, not what `value` is (the {@link USER} voice). */
export function invalidArgument(field: string, expected: string, value: unknown): TritonError {
  return new TritonError(
    "INVALID_ARG",
    `${field} must be ${expected}, not ${describeValue(value)}`,
  );
}

/** `value` as a string, or INVALID_ARG naming `field`. */
export function expectString(field: string, value: unknown): string {
  return checked(USER, STRING, field, value);
}

/** `value` as a boolean (undefined when absent), or INVALID_ARG naming `field`. */
export function optionalBoolean(field: string, value: unknown): boolean | undefined {
  return optional(USER, BOOLEAN, field, value);
}

/** `value` as a record, or INVALID_ARG naming `field` and what it should hold. */
export function expectRecord(
  field: string,
  value: unknown,
  expected = "an object",
): Record<string, unknown> {
  return checked(
    USER,
    expected === RECORD.expected ? RECORD : called(RECORD, expected),
    field,
    value,
  );
}

/**
 * Checks that `record` has no field outside `keys`.
 * @param renamed old field names → what to give instead, for the message.
 * @throws {TritonError} INVALID_ARG naming the unknown field (and its replacement, if renamed).
 */
export function knownFields(
  what: string,
  record: Record<string, unknown>,
  keys: readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): void {
  for (const k of Object.keys(record)) {
    if (keys.includes(k)) continue;
    const instead = Object.hasOwn(renamed, k) ? ` (give ${renamed[k]} instead)` : "";
    throw new TritonError("INVALID_ARG", `unknown field '${k}' in ${what}${instead}`);
  }
}
