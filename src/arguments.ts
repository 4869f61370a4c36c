/**
 * Checks of the values users pass, before any of them is used: a wrong kind is a `TritonError`
 * INVALID_ARG naming the field and what it got, never a `TypeError` from deeper in.
 *
 * @module
 */
import { TritonError } from "./errors.ts";

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

/** INVALID_ARG: `field` must be `expected`, not what `value` is. */
export function invalidArgument(field: string, expected: string, value: unknown): TritonError {
  return new TritonError(
    "INVALID_ARG",
    `${field} must be ${expected}, not ${describeValue(value)}`,
  );
}

/** `value` as a string, or INVALID_ARG naming `field`. */
export function expectString(field: string, value: unknown): string {
  if (typeof value !== "string") throw invalidArgument(field, "a string", value);
  return value;
}

/** `value` as a boolean (undefined when absent), or INVALID_ARG naming `field`. */
export function optionalBoolean(field: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== "boolean") {
    throw invalidArgument(field, "a boolean", value);
  }
  return value;
}

/** Whether `value` is a plain record (an object that is not an array, TypedArray or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !ArrayBuffer.isView(value);
}

/** `value` as a record, or INVALID_ARG naming `field` and what it should hold. */
export function expectRecord(
  field: string,
  value: unknown,
  expected = "an object",
): Record<string, unknown> {
  if (!isRecord(value)) throw invalidArgument(field, expected, value);
  return value;
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
