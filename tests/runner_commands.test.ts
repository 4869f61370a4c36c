/**
 * README's commands that run the suite with each runner alone (`deno test`, `bun test`,
 * `node --test`), run as README gives them on a short file (`tests/support/runner_config.test.ts`)
 * in place of the suite, so that README and the runners' configuration cannot drift apart again.
 * The same whichever runner or callback path runs it: `npm test` runs it in its first run only.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "./support/test.ts";
import { fileURLToPath } from "node:url";
import { toolchainBin } from "./runtime_command.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const FIXTURE = "tests/support/runner_config.test.ts";

/** The commands in README's fenced block after `<!-- runner commands -->`, comments dropped. */
function readmeCommands(): string[][] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = /<!-- runner commands -->\s*```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, "README has no runner commands block");
  return block[1].split("\n").map((l) => l.replace(/#.*/, "").trim()).filter(Boolean)
    .map((line) => line.split(/\s+/).map((w) => w.replace(/^'(.*)'$/, "$1")));
}

const skip = process.env.TEST_PACKAGE === "0" && "npm test runs it in its first run";

test(
  "README's runner commands run a test past 5 s and an inference",
  { skip, timeout: 120_000 },
  () => {
    const commands = readmeCommands();
    const runners = commands.filter(([npx, tool]) => npx === "npx" && tool !== "npm");
    assert.deepEqual(runners.map((c) => c[1]), ["deno", "bun", "node"]);
    assert.ok(commands.some((c) => c.join(" ") === "npm run build:fake"), "the build step");
    for (const [, tool, ...args] of runners) {
      // The suite's path (a folder or a glob) stands for the short file.
      const argv = args.map((a) => (a === "tests/" || a === "tests/**/*.test.ts" ? FIXTURE : a));
      assert.ok(argv.includes(FIXTURE), `${tool}: no tests/ argument in ${args.join(" ")}`);
      const environment: Record<string, string | undefined> = {
        ...process.env,
        TRITONFFI_RUNNER_CHECK: "1",
      };
      // Set by `node --test` for its child processes: a runner started with it thinks it runs
      // inside one and skips its files.
      delete environment.NODE_TEST_CONTEXT;
      const r = spawnSync(toolchainBin(root, tool), argv, {
        cwd: root,
        env: environment,
        encoding: "utf8",
        timeout: 60_000,
      });
      const output = `${r.stdout}\n${r.stderr}`;
      assert.equal(r.status, 0, `${tool} ${argv.join(" ")} failed:\n${output.slice(-3000)}`);
      assert.match(output, /1 pass|pass 1|1 passed/, `${tool}: the test did not run:\n${output}`);
    }
  },
);
