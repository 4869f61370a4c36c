/**
 * `test` from `node:test`, printing why a test is skipped on Deno and Bun too: their runners show a
 * skipped test without the reason that `node --test` prints beside it. Reasons given as the
 * `skip` option and through `t.skip(reason)` are both printed, one line each. A test named in
 * `$TEST_SKIP` is skipped with the reason given there.
 *
 * @module
 */
import process from "node:process";
import { test as nodeTest, type TestContext, type TestOptions } from "node:test";

type Fn = (t: TestContext) => void | Promise<void>;
type Options = TestOptions;

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

function say(name: string, reason: unknown): void {
  if (typeof reason === "string" && reason !== "") console.log(`  skipped: ${name} (${reason})`);
}

/** Tests left out by name, each with why: `$TEST_SKIP`, a JSON object of name to reason (set by
 * tests/aarch64/run.mjs; the runners' name filters cannot leave a test out on all three). */
const leftOut: Record<string, string> = JSON.parse(process.env.TEST_SKIP || "{}");

/** The same as `node:test`'s `test(name, [options], fn)`; see the module documentation. */
export function test(name: string, optionsOrFn: Options | Fn, maybeFn?: Fn): Promise<void> {
  let options: Options = typeof optionsOrFn === "function" ? {} : optionsOrFn;
  if (Object.hasOwn(leftOut, name)) options = { ...options, skip: leftOut[name] };
  const fn = (typeof optionsOrFn === "function" ? optionsOrFn : maybeFn)!;
  if (isNode) return nodeTest(name, options, fn) as Promise<void>;
  if (options.skip) say(name, options.skip);
  const wrapped: Fn = (t) => {
    const skip = t.skip?.bind(t);
    if (skip) {
      t.skip = (reason?: string) => {
        say(name, reason);
        return skip(reason);
      };
    }
    return fn(t);
  };
  return nodeTest(name, options, wrapped) as Promise<void>;
}

/**
 * {@link test}, with every test it makes skipped for `reason` where that is a string: for a file
 * whose every test needs what this run lacks (`const test = skippingAll(GRPC_SKIP)`), so that
 * each is reported skipped with why rather than left out.
 */
export function skippingAll(reason: string | false): typeof test {
  if (!reason) return test;
  return (name, optionsOrFn, maybeFn) => {
    const options = typeof optionsOrFn === "function" ? {} : optionsOrFn;
    const fn = (typeof optionsOrFn === "function" ? optionsOrFn : maybeFn)!;
    return test(name, { ...options, skip: options.skip || reason }, fn);
  };
}
