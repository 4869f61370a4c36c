/**
 * Duration options: each is named with its unit (`timeoutMs`), and the unit-less name it
 * replaces (`timeout`) still works.
 *
 * @module
 */
import { describeValue } from "./arguments.ts";
import { TritonError } from "./errors.ts";

/**
 * The duration given as `value` under the unit-named option `name`, or as `oldValue` under its
 * old name `oldName`; `fallback` when neither is given.
 * @param unit the unit both names are in, for messages ("milliseconds").
 * @throws {TritonError} INVALID_ARG when a value is not a number >= 0, or when both names are
 *   given with different values.
 */
export function duration(
  name: string,
  value: unknown,
  oldName: string,
  oldValue: unknown,
  unit: string,
  fallback: number,
): number {
  const check = (n: string, v: unknown): number | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !(v >= 0)) {
      throw new TritonError(
        "INVALID_ARG",
        `${n} must be a number of ${unit} >= 0, not ${describeValue(v)}`,
      );
    }
    return v;
  };
  const given = check(name, value);
  const old = check(oldName, oldValue);
  if (given !== undefined && old !== undefined && given !== old) {
    throw new TritonError(
      "INVALID_ARG",
      `${name} (${given}) contradicts ${oldName} (${old}), its old name: give one`,
    );
  }
  return given ?? old ?? fallback;
}
