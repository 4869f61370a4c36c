/**
 * tests/runner_report.mjs counts the tests of `npm test` in one unit on every runner: the three
 * runners run one file of tests, describe blocks (nested), skipped tests and a failing one, and
 * each run's counts are the same (Deno's own line would count the blocks as tests and their tests
 * as steps).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { test } from "./support/test.ts";
import { counts, lastWords } from "./runner_report.mjs";
import { testCommand } from "./runtime_command.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

// Eight tests: five pass, one fails, two are skipped; three describe blocks hold six of them.
const FIXTURE = `import { describe, test } from "node:test";
test("top", () => {});
test("skipped top", { skip: "a reason" }, () => {});
describe("block", () => {
  test("a", () => {});
  test("b", () => {});
  test("skipped in a block", { skip: "a reason" }, () => {});
  describe("inner", () => {
    test("c", () => {});
  });
});
describe("another", () => {
  test("d", () => {});
  test("fails <&>", () => {
    throw new Error("as meant");
  });
});
`;

test("npm test's counts: one unit on Deno, Bun and Node", {
  skip: ("Deno" in globalThis || "Bun" in globalThis) &&
    "it runs the three runners itself: the Node run checks it",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-counts-"));
  try {
    const file = join(dir, "counted.test.ts");
    writeFileSync(file, FIXTURE);
    for (const runtime of ["deno", "bun", "node"]) {
      const [cmd, args] = testCommand(ROOT, runtime, [file], undefined);
      const junit = join(dir, `${runtime}.xml`);
      if (runtime === "deno") args.splice(1, 0, `--junit-path=${junit}`);
      // Without node --test's NODE_TEST_CONTEXT, which would make the child a part of this run.
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", env });
      const output = `${r.stdout}${r.stderr}`;
      const report = existsSync(junit) ? readFileSync(junit, "utf8") : undefined;
      if (runtime === "deno") assert.ok(report, `no JUnit report:\n${output}`);
      assert.deepEqual(
        counts(runtime, output, report),
        { passed: 5, failed: 1, skipped: 2 },
        `${runtime}:\n${output}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a runner that dies mid-run: the summary names its file and shows its last lines", {
  skip: ("Deno" in globalThis || "Bun" in globalThis) &&
    "it runs the three runners itself: the Node run checks it",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "tritonffi-died-"));
  try {
    const fine = join(dir, "a_fine.test.ts");
    const dies = join(dir, "b_dies.test.ts");
    writeFileSync(fine, `import { test } from "node:test";\ntest("fine", () => {});\n`);
    writeFileSync(
      dies,
      `import { test } from "node:test";\nimport process from "node:process";\n` +
        `test("dies here", () => process.abort());\n`,
    );
    for (const runtime of ["deno", "bun", "node"]) {
      const [cmd, args] = testCommand(ROOT, runtime, [fine, dies], undefined);
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      // stdout and stderr in one file, in the order written, as run_all.mjs reads them.
      const log = join(dir, `${runtime}.log`);
      const fd = openSync(log, "w");
      const r = spawnSync(cmd, args, { cwd: dir, env, stdio: ["ignore", fd, fd] });
      closeSync(fd);
      const output = readFileSync(log, "utf8");
      assert.notEqual(r.status, 0, `${runtime} exited 0:\n${output}`);
      const words = lastWords(runtime, output);
      assert.ok(words.tail.length > 0 && words.tail.length <= 25, runtime);
      assert.equal(
        words.tail.at(-1),
        stripVTControlCharacters(output).trimEnd().split("\n").at(-1),
      );
      // Node runs each file in a process of its own and names none where one dies; Bun names the
      // file that died; Deno the last it named before the abort, which can cut its reporter's
      // last lines short (seen under load: the dying file's line was lost).
      if (runtime === "bun") {
        assert.match(words.file ?? "", /b_dies\.test\.ts$/, `${runtime}: ${output}`);
      } else if (runtime === "deno") {
        assert.match(words.file ?? "", /(a_fine|b_dies)\.test\.ts$/, `${runtime}: ${output}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
