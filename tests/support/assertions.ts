/**
 * Assertion helpers shared by the tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { TritonError } from "../../mod.ts";

/** A predicate for `assert.throws`/`rejects`: a TritonError with `code` whose message matches. */
export function isTritonError(code: string, pattern: RegExp): (e: unknown) => true {
  return (e: unknown) => {
    assert.ok(e instanceof TritonError, `expected TritonError, got ${e}`);
    assert.equal(e.code, code, `code of: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  };
}

/** Runs `fn`; where it throws TritonError UNSUPPORTED, returns that error instead. */
export async function unsupported(fn: () => unknown): Promise<TritonError | undefined> {
  try {
    await fn();
    return undefined;
  } catch (e) {
    if (e instanceof TritonError && e.code === "UNSUPPORTED") return e;
    throw e;
  }
}
