/**
 * A minimal test runner that behaves the same on Deno, Bun and Node: `test()` registers, `run()`
 * runs in order with a per-test timeout and prints `<runtime>: N passed, N failed`.
 *
 * @module
 */
import { runtimeName } from "../ffi/runtime.ts";

interface Case {
  readonly name: string;
  readonly fn: () => void | Promise<void>;
  readonly timeout: number;
}

const cases: Case[] = [];

/** Thrown by {@link skip}. */
class Skip extends Error {}

/** Ends the current test as skipped (for what the core or machine under test cannot do). */
export function skip(reason: string): never {
  throw new Skip(reason);
}

/** Registers a test. `timeout` in milliseconds (default 60 s). */
export function test(
  name: string,
  fn: () => void | Promise<void>,
  options: { timeout?: number } = {},
): void {
  cases.push({ name, fn, timeout: options.timeout ?? 60_000 });
}

/** Runs every registered test (or those whose name contains `$TEST_FILTER`) and reports. */
export async function run(filter?: string): Promise<{ passed: number; failed: number }> {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const runtime = runtimeName();
  for (const c of cases) {
    if (filter && !c.name.includes(filter)) continue;
    const t0 = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(c.fn),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`timed out after ${c.timeout} ms`)),
            c.timeout,
          );
        }),
      ]);
      passed++;
      console.log(`  ok    ${c.name} (${(performance.now() - t0).toFixed(0)} ms)`);
    } catch (e) {
      if (e instanceof Skip) {
        skipped++;
        console.log(`  skip  ${c.name}: ${e.message}`);
        continue;
      }
      failed++;
      console.log(`  FAIL  ${c.name}`);
      console.log(String(e instanceof Error ? e.stack ?? e : e).replace(/^/gm, "        "));
    } finally {
      clearTimeout(timer);
    }
  }
  console.log(`${runtime}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return { passed, failed };
}
