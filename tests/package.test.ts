/**
 * The package as users install it: `npm pack` (which builds dist/ with tsc in `prepack`),
 * what it ships (dist/, LICENSE, proto/, docs/, the README's links resolving inside it),
 * `npm install` of the tarball into a scratch project — offline, its dependencies coming from
 * this checkout's node_modules — then examples/quickstart.ts, importing "tritonffi", on Node, Bun
 * and Deno (the pinned binaries under node_modules/.bin) against the core under test.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, posix } from "node:path";
import process from "node:process";
import { test } from "./support/test.ts";
import { MODEL_REPOSITORY } from "./support/env.ts";

const root = decodeURIComponent(new URL("..", import.meta.url).pathname);
const bin = (name: string) => join(root, "node_modules", ".bin", name);

/** How to run npm: its CLI script on the pinned node, so that the machine's node is not needed —
 * the one that started the tests (`npm test` sets `npm_execpath`), else the `npm` on PATH;
 * undefined without either. */
function npmCommand(): [string, string[]] | undefined {
  const started = process.env.npm_execpath;
  if (started && /npm-cli\.[cm]?js$/.test(started)) return [bin("node"), [started]];
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const npm = join(dir, "npm");
    if (!dir || !existsSync(npm)) continue;
    const real = realpathSync(npm);
    return /npm-cli\.[cm]?js$/.test(real) ? [bin("node"), [real]] : [npm, []];
  }
  return undefined;
}

const npm = npmCommand();

/** Runs a command; fails the test with its output when it exits non-zero. */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(
    r.status,
    0,
    `${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}: ${
      r.error ?? ""
    }\n${r.stdout}\n${r.stderr}`,
  );
  return r.stdout;
}

/** Packs `dir` into `dest` with npm; returns the tarball's path. */
function pack(dir: string, dest: string, ignoreScripts = false): string {
  return packAll([dir], dest, ignoreScripts)[0];
}

/** `npm pack` of every folder of `dirs` in one run; the tarballs' paths. */
function packAll(dirs: string[], dest: string, ignoreScripts = false): string[] {
  const [cmd, pre] = npm!;
  const args = [...pre, "pack", ...dirs, "--pack-destination", dest, "--json"];
  if (ignoreScripts) args.push("--ignore-scripts");
  const infos = JSON.parse(run(cmd, args, root)) as { filename: string }[];
  return infos.map((info) => join(dest, info.filename));
}

/** The files under `dir`, as sorted paths relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const path = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(dir, path) : [path];
  }).sort();
}

/** Markdown without its fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** The targets of the links and images of `markdown` that name no scheme (`https:`, `mailto:`). */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives the headings of `markdown`: lower case, punctuation dropped, spaces as
 * hyphens, `-1`, `-2`, ... after a repeated one. */
function headingAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  return [...prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map((m) => {
    const slug = m[1].toLowerCase().replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "").replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    return n ? `${slug}-${n}` : slug;
  });
}

// The same whichever runner or callback path runs it: `npm test` runs it in its first run only.
const skip = process.env.TEST_PACKAGE === "0"
  ? "npm test runs the package test in its first run"
  : !npm && "needs npm (npm test, or npm on PATH)";

test(
  "npm pack: the package installs into a fresh project and runs the quickstart on Node, Bun and Deno",
  {
    skip,
    timeout: 180_000,
  },
  () => {
    const scratch = mkdtempSync(join(tmpdir(), "tritonffi-package-"));
    try {
      const tarballs = join(scratch, "tarballs");
      mkdirSync(tarballs);
      const tarball = pack(root, tarballs);
      // The package's runtime dependencies and theirs (koffi with its platform binaries, hono,
      // @grpc/grpc-js, protobufjs, ...) as installed here, from the lock file: no registry.
      const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
        packages: Record<string, { dev?: boolean }>;
      };
      const deps = Object.entries(lock.packages)
        .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev)
        .map(([path]) => join(root, path))
        .filter((dir) => existsSync(join(dir, "package.json")));
      const scoped = join(root, "node_modules", "@koromix");
      if (existsSync(scoped)) {
        for (const d of readdirSync(scoped)) {
          if (!deps.includes(join(scoped, d))) deps.push(join(scoped, d));
        }
      }
      const depTarballs = packAll(deps, tarballs, true);

      const app = join(scratch, "app");
      mkdirSync(join(app, "examples"), { recursive: true });
      mkdirSync(join(app, "tests"));
      writeFileSync(
        join(app, "package.json"),
        JSON.stringify({ name: "app", private: true, type: "module" }),
      );
      const [cmd, pre] = npm!;
      run(cmd, [
        ...pre,
        "install",
        tarball,
        ...depTarballs,
        "--offline",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
      ], app);

      // What was installed: built JavaScript and declarations, the license, the gRPC service
      // definition and the documentation, nothing else of the repository's own.
      const installed = join(app, "node_modules", "tritonffi");
      const files = filesUnder(installed);
      assert.ok(files.includes("dist/mod.js") && files.includes("dist/mod.d.ts"), files.join(" "));
      const docs = ["README.md", "bench/README.md", "bench/results/real.svg"];
      const extra = files.filter((f) =>
        !(f === "package.json" || f === "LICENSE" || docs.includes(f) ||
          /^(dist|proto|docs)\//.test(f))
      );
      assert.deepEqual(extra, [], "only dist/, proto/, docs/, LICENSE and the READMEs are shipped");
      assert.match(readFileSync(join(installed, "LICENSE"), "utf8"), /^MIT License\n/);
      for (const proto of ["proto/grpc_service.proto", "proto/health.proto"]) {
        assert.ok(files.includes(proto), proto);
      }
      // The modules a front end's worker threads start (`workers` > 1), found by URL, not import.
      for (
        const worker of [
          "dist/serving/kserve/http/kserve_worker.js",
          "dist/serving/openai/openai_worker.js",
          "dist/serving/kserve/grpc/grpc_worker.js",
        ]
      ) {
        assert.ok(files.includes(worker), worker);
      }
      // Every relative link of the shipped Markdown (the README that npm shows, the docs it
      // links to) resolves inside the package, headings included.
      const markdown = files.filter((f) => f.endsWith(".md"));
      assert.ok(
        markdown.includes("README.md") && markdown.includes("docs/serving.md"),
        markdown.join(" "),
      );
      for (const file of markdown) {
        for (const link of relativeLinks(readFileSync(join(installed, file), "utf8"))) {
          const [path, anchor] = link.split("#");
          const target = path ? posix.normalize(posix.join(posix.dirname(file), path)) : file;
          assert.ok(
            files.includes(target),
            `${file}: link ${link}: ${target} is not in the package`,
          );
          if (anchor !== undefined && target.endsWith(".md")) {
            const headings = headingAnchors(readFileSync(join(installed, target), "utf8"));
            assert.ok(headings.includes(anchor), `${file}: link ${link}: no heading #${anchor}`);
          }
        }
      }
      const sources = files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
      assert.deepEqual(sources, [], "no TypeScript sources (Node will not strip types there)");
      // What ships is the API: members marked @internal are stripped from the declarations.
      const internal = files.filter((f) =>
        f.endsWith(".d.ts") && readFileSync(join(installed, f), "utf8").includes("@internal")
      );
      assert.deepEqual(internal, [], "declarations with @internal members");
      const serverTypes = readFileSync(join(installed, "dist/src/server.d.ts"), "utf8");
      assert.doesNotMatch(serverTypes, /inferTarget|native\(\)/, "Server's internals shipped");
      const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
      assert.deepEqual(manifest.exports, {
        ".": { types: "./dist/mod.d.ts", default: "./dist/mod.js" },
        "./serve": { types: "./dist/serve.d.ts", default: "./dist/serve.js" },
        "./grpc": { types: "./dist/grpc.d.ts", default: "./dist/grpc.js" },
        "./openai": { types: "./dist/openai.d.ts", default: "./dist/openai.js" },
        "./types": { types: "./dist/types.d.ts", default: "./dist/types.js" },
      });
      assert.deepEqual(manifest.bin, { tritonffi: "./dist/cli.js" });

      // The quickstart as a user would write it: importing "tritonffi".
      const quickstart = readFileSync(join(root, "examples", "quickstart.ts"), "utf8");
      assert.match(quickstart, /from "\.\.\/mod\.ts"/);
      writeFileSync(
        join(app, "examples", "quickstart.ts"),
        quickstart.replace('from "../mod.ts"', 'from "tritonffi"'),
      );
      // The models' declarations it imports (as `tritonffi types tests/models` writes them).
      copyFileSync(join(root, "examples", "models.d.ts"), join(app, "examples", "models.d.ts"));
      symlinkSync(MODEL_REPOSITORY, join(app, "tests", "models"));
      const env: Record<string, string> = {};
      for (const name of ["TRITONSERVER_LIB", "TRITONSERVER_BACKEND_DIR"]) {
        if (process.env[name]) env[name] = process.env[name]!;
      }
      const commands: [string, string, string[]][] = [
        ["node", bin("node"), ["examples/quickstart.ts"]],
        ["bun", bin("bun"), ["examples/quickstart.ts"]],
        ["deno", bin("deno"), ["run", "-A", "examples/quickstart.ts"]],
      ];
      // The HTTP front end, from its own entry.
      writeFileSync(
        join(app, "examples", "serve_check.ts"),
        [
          'import { Server } from "tritonffi";',
          'import { serve } from "tritonffi/serve";',
          'await using server = await new Server({ modelRepository: "tests/models" }).start();',
          "await using http = await serve(server, { port: 0 });",
          "const r = await fetch(`${http.url}/v2/health/ready`);",
          'console.log("http ready", r.status);',
          "",
        ].join("\n"),
      );
      // The OpenAI front end, from its own entry.
      writeFileSync(
        join(app, "examples", "openai_check.ts"),
        [
          'import { Server } from "tritonffi";',
          'import { serveOpenAI } from "tritonffi/openai";',
          'await using server = await new Server({ modelRepository: "tests/models" }).start();',
          "await using openai = await serveOpenAI(server, { port: 0 });",
          "const r = await fetch(`${openai.url}/v1/models`);",
          'console.log("openai models", r.status, (await r.json()).object);',
          "",
        ].join("\n"),
      );
      for (const [runtime, cmd, args] of commands) {
        const served = run(cmd, [...args.slice(0, -1), "examples/serve_check.ts"], app, env);
        assert.match(served, /http ready 200/, `${runtime}: ${served}`);
        const openai = run(cmd, [...args.slice(0, -1), "examples/openai_check.ts"], app, env);
        assert.match(openai, /openai models 200 list/, `${runtime}: ${openai}`);
        const out = run(cmd, args, app, env).replace(/\s+/g, "");
        const sums = Array.from({ length: 16 }, (_, i) => i + 1).join(",");
        assert.ok(out.includes("serverlive=trueready=true"), `${runtime}: ${out}`);
        assert.ok(out.includes(`add_subOUTPUT0(INPUT0+INPUT1):[${sums}]`), `${runtime}: ${out}`);
        assert.ok(out.includes("repeat_int32response2:OUT=30done"), `${runtime}: ${out}`);
      }
      // Deno with only the two permissions the binding needs (README, docs/api.md).
      const minimal = run(
        bin("deno"),
        [
          "run",
          "--allow-ffi",
          "--allow-env",
          "examples/quickstart.ts",
        ],
        app,
        env,
      );
      assert.ok(minimal.replace(/\s+/g, "").includes("OUT=30done"), `deno: ${minimal}`);
      // A Deno script with no package.json above it imports the installed files by path, and a
      // front end's with --node-modules-dir=manual (docs/api.md): "tritonffi" would go to the
      // registry there.
      const elsewhere = join(scratch, "elsewhere");
      mkdirSync(elsewhere);
      writeFileSync(
        join(elsewhere, "by_path.ts"),
        [
          `import { Server } from ${JSON.stringify(join(installed, "dist/mod.js"))};`,
          `import { serve } from ${JSON.stringify(join(installed, "dist/serve.js"))};`,
          "await using server = await new Server({",
          `  modelRepository: ${JSON.stringify(MODEL_REPOSITORY)},`,
          "  log: { info: false },",
          "}).start();",
          "await using http = await serve(server, { port: 0 });",
          "const r = await fetch(`${http.url}/v2/health/ready`);",
          'console.log("by path", server.metadata().name, r.status);',
          "",
        ].join("\n"),
      );
      const byPath = run(
        bin("deno"),
        [
          "run",
          "--node-modules-dir=manual",
          "--allow-ffi",
          "--allow-env",
          "--allow-read",
          "--allow-write",
          "--allow-net",
          "--unstable-no-legacy-abort",
          "by_path.ts",
        ],
        elsewhere,
        env,
      );
      assert.match(byPath, /^by path triton 200$/m);
      // The `tritonffi` command as npm installed it (node_modules/.bin, run by the `node` on PATH:
      // the pinned one here), then a program typed by what it wrote.
      const path = `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`;
      const declarations = spawnSync(
        join(app, "node_modules", ".bin", "tritonffi"),
        ["types", "tests/models"],
        { cwd: app, encoding: "utf8", timeout: 60_000, env: { ...process.env, PATH: path } },
      );
      assert.equal(declarations.status, 0, `tritonffi types: ${declarations.stderr}`);
      assert.equal(
        declarations.stdout,
        readFileSync(join(root, "examples", "models.d.ts"), "utf8"),
        "the installed command writes what the repository's does",
      );
      writeFileSync(join(app, "examples", "models.d.ts"), declarations.stdout);
      writeFileSync(
        join(app, "examples", "typed_check.ts"),
        [
          'import { Server } from "tritonffi";',
          'import { repositoryDeclarations } from "tritonffi/types";',
          'import type { Models } from "./models.d.ts";',
          "await using server = await new Server<Models>({",
          '  modelRepository: "tests/models",',
          "  log: { info: false },",
          "}).start();",
          "const a = new Float32Array(16).fill(1);",
          'const model = server.model("add_sub");',
          "using r = await model.inferOne({ inputs: { INPUT0: a, INPUT1: a } });",
          'const sum: Float32Array = r.output("OUTPUT0").data;',
          "// @ts-expect-error a misspelt input",
          "if (sum.length < 0) await model.inferOne({ inputs: { INPUT: a, INPUT1: a } });",
          'const { models } = await repositoryDeclarations(["tests/models"]);',
          'console.log("typed", sum[0], models.length > 20);',
          "",
        ].join("\n"),
      );
      for (const [runtime, cmd, args] of commands) {
        const typed = run(cmd, [...args.slice(0, -1), "examples/typed_check.ts"], app, env);
        assert.match(typed, /typed 2 true/, `${runtime}: ${typed}`);
      }
      // The declarations type-check a user's program.
      run(
        bin("deno"),
        [
          "check",
          "examples/quickstart.ts",
          "examples/serve_check.ts",
          "examples/openai_check.ts",
          "examples/typed_check.ts",
        ],
        app,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
);

test("README names each install script a user's npm install meets, to approve or not", () => {
  // The package's own dependencies, and theirs, with an install script (the lock file says).
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
  };
  const scripted = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
    .sort();
  // README's allowScripts line names each one (the test above installs with --ignore-scripts:
  // the package runs without any of them).
  const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\s+/g, " ");
  const allow = /"allowScripts": \{([^}]*)\}/.exec(readme);
  assert.ok(allow, "README gives an allowScripts line");
  const named = [...allow[1].matchAll(/"([^"]+)": false/g)].map((m) => m[1]).sort();
  assert.deepEqual(named, scripted);
});
