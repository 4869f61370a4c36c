/**
 * `test` from `node:test`, printing why a test is skipped on Deno and Bun too: their runners show a
 * skipped test without the reason that `node --test` prints beside it. Reasons given as the
 * `skip` option and through `t.skip(reason)` are both printed, one line each.
 *
 * @module
 */
import { test as nodeTest, type TestContext, type TestOptions } from "node:test";

type Fn = (t: TestContext) => void | Promise<void>;
type Options = TestOptions;

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

function say(name: string, reason: unknown): void {
  if (typeof reason === "string" && reason !== "") console.log(`  skipped: ${name} (${reason})`);
}

/** The same as `node:test`'s `test(name, [options], fn)`; see the module documentation. */
export function test(name: string, optionsOrFn: Options | Fn, maybeFn?: Fn): Promise<void> {
  const options: Options = typeof optionsOrFn === "function" ? {} : optionsOrFn;
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
