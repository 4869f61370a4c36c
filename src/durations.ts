/**
 * Duration options, each named with its unit (`timeoutMs`, `timeoutUs`).
 *
 * @module
 */
import { describeValue } from "./value_checks.ts";
import { TritonError } from "./errors.ts";

/**
 * The duration given as `value` under the unit-named option `name`; `fallback` when not given.
 * @param unit the unit, for messages ("milliseconds").
 * @throws {TritonError} INVALID_ARG when the value is not a number >= 0.
 */
export function duration(name: string, value: unknown, unit: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0)) {
    throw new TritonError(
      "INVALID_ARG",
      `${name} must be a number of ${unit} >= 0, not ${describeValue(value)}`,
    );
  }
  return value;
}
