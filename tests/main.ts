/**
 * The test suite's entry point on every runtime:
 * `deno run --allow-ffi --allow-env --allow-read --allow-write tests/main.ts`,
 * `bun tests/main.ts`, `node --import tsx tests/main.ts`. `npm test` runs all three.
 *
 * @module
 */
import process from "node:process";
import { run } from "./harness.ts";
import { env } from "../ffi/runtime.ts";
import { stopShared } from "./support/env.ts";
import "./tensor.test.ts";
import "./identity.test.ts";
import "./add_sub.test.ts";
import "./repeat.test.ts";
import "./bad_input.test.ts";
import "./lifecycle.test.ts";
import "./streaming.test.ts";
import "./memory.test.ts";
import "./options.test.ts";
import "./repository.test.ts";
import "./metadata.test.ts";
import "./metrics.test.ts";
import "./trace.test.ts";
import "./thunks.test.ts";

const { failed } = await run(env("TEST_FILTER"));
await stopShared();
process.exit(failed > 0 ? 1 : 0);
