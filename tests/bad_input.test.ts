import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { LibraryLoadError, Tensor, TritonError } from "../mod.ts";
import { loadTriton } from "../ffi/mod.ts";
import { toolchainBin } from "./runtime_command.mjs";
import {
  collect,
  liveCounter,
  runScript,
  sharedServer,
  startServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LOADER = fileURLToPath(new URL("../ffi/mod.ts", import.meta.url));

function isTritonError(code: string, pattern: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof TritonError, `expected TritonError, got ${e}`);
    assert.equal(e.code, code);
    assert.match(e.message, pattern);
    return true;
  };
}

/** Fails when an in-flight request or response of the fake core is left alive. */
async function assertNoLiveRequests(): Promise<void> {
  const live = await liveCounter();
  if (!live) return;
  const deadline = Date.now() + 2000;
  while ((live("request") > 0 || live("response") > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(live("request"), 0, "live requests");
  assert.equal(live("response"), 0, "live responses");
  assert.equal(live("error"), 0, "live errors");
}

const good = { INPUT0: new Float32Array(16), INPUT1: new Float32Array(16) };

test("unknown model: TritonError NOT_FOUND naming the model", async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("no_such_model").infer({ inputs: good }),
    isTritonError("NOT_FOUND", /no_such_model/),
  );
  await assertNoLiveRequests();
});

test("unknown input name: TritonError INVALID_ARG naming the input", async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { ...good, BOGUS: new Float32Array(16) } }),
    isTritonError(
      "INVALID_ARG",
      /BOGUS.*\(the model's inputs: INPUT0 FP32 \[16\], INPUT1 FP32 \[16\]\)$/s,
    ),
  );
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { INPUT0: good.INPUT0 } }),
    isTritonError("INVALID_ARG", /\(the model's inputs: INPUT0 FP32 \[16\], INPUT1 FP32 \[16\]\)$/),
  );
  await assertNoLiveRequests();
});

test("missing input: TritonError INVALID_ARG", async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { INPUT0: good.INPUT0 } }),
    isTritonError("INVALID_ARG", /INPUT1|input/),
  );
  await assertNoLiveRequests();
});

test("wrong data type: TritonError INVALID_ARG naming the data types", async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { ...good, INPUT1: new Int32Array(16) } }),
    isTritonError("INVALID_ARG", /INT32|FP32/),
  );
  await assertNoLiveRequests();
});

test("wrong shape: TritonError INVALID_ARG", async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { ...good, INPUT1: new Float32Array(15) } }),
    isTritonError("INVALID_ARG", /shape|INPUT1/),
  );
  await assertNoLiveRequests();
});

test("data that does not fill the shape: TritonError INVALID_ARG before any C call", () => {
  assert.throws(
    () => new Tensor("FP32", [2, 16], new Float32Array(16)),
    isTritonError("INVALID_ARG", /needs 32 elements, data has 16/),
  );
  assert.throws(
    // Untyped on purpose: what a JS caller could pass.
    () => new Tensor("FP32", [4], new Float64Array(4) as unknown as Float32Array),
    isTritonError("INVALID_ARG", /FP32 data must be a Float32Array, not a Float64Array/),
  );
});

test("missing library: LibraryLoadError saying what was tried", async () => {
  await assert.rejects(loadTriton("/nonexistent/libtritonserver.so"), (e: unknown) => {
    assert.ok(e instanceof LibraryLoadError);
    assert.match(e.message, /Tried:/);
    assert.match(e.message, /\/nonexistent\/libtritonserver\.so/);
    // The runtime's own words, each said once (Deno's doubled "Could not open library: ").
    assert.doesNotMatch(e.message, /([A-Z][\w ]{6,}: )\1/);
    return true;
  });
});

test("a wrong TRITONSERVER_LIB is the only path tried, and the error says so", () => {
  const script = `const { loadTriton } = await import(${JSON.stringify(LOADER)});
    await loadTriton().then(() => console.log("loaded"), (e) => console.log(e.name, e.message));`;
  const r = spawnSync(toolchainBin(ROOT, "node"), ["--input-type=module", "-e", script], {
    env: { ...process.env, TRITONSERVER_LIB: "/nonexistent/libtritonserver.so" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^LibraryLoadError Cannot load/);
  assert.match(r.stdout, /\/nonexistent\/libtritonserver\.so \(TRITONSERVER_LIB\)/);
  assert.match(r.stdout, /Only TRITONSERVER_LIB was tried: correct it, or unset it/);
  assert.doesNotMatch(r.stdout, /Triton container's default|system loader\)/, "nothing else tried");
});

test("Deno without its permissions: one hint naming every flag the binding needs", () => {
  const script = `const { loadTriton } = await import(${JSON.stringify(LOADER)});
    await loadTriton().then(() => console.log("loaded"), (e) => console.log(e.name, e.message));`;
  // The toolchain's deno by its path: Deno's node:child_process runs its own executable with
  // every permission.
  const deno = toolchainBin(ROOT, "deno");
  for (const flags of [[], ["--allow-ffi"], ["--allow-env"]]) {
    // `deno run -` reads the script from stdin (`deno eval` would grant every permission).
    const r = spawnSync(deno, ["run", "--no-prompt", ...flags, "-"], {
      input: script,
      env: { ...process.env, TRITONSERVER_LIB: "/nonexistent/libtritonserver.so" },
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^LibraryLoadError Cannot load/, flags.join(" "));
    // Both flags, on one line: the run given neither learns of both at once.
    assert.match(r.stdout, /^.*--allow-ffi.*--allow-env.*$|^.*--allow-env.*--allow-ffi.*$/m);
  }
});

test("bad server options: TritonError INVALID_ARG before any C call", async () => {
  await assert.rejects(
    startServer({ modelControlMode: "sometimes" as "none" }),
    isTritonError("INVALID_ARG", /modelControlMode/),
  );
  await assert.rejects(
    startServer({ exitTimeoutSecs: -1 }),
    isTritonError("INVALID_ARG", /exitTimeout/),
  );
});

test("nonexistent model repository: start() fails with Triton's error", async () => {
  await assert.rejects(
    startServer({ modelRepository: "/nonexistent/models" }),
    (e: unknown) => e instanceof TritonError && /nonexistent/.test(e.message),
  );
});

test("server used after stop: TritonError UNAVAILABLE", async () => {
  const server = await startServer();
  const model = server.model("add_sub");
  await server.stop();
  assert.throws(() => model.infer({ inputs: good }), isTritonError("UNAVAILABLE", /stopped/));
  assert.throws(() => server.ready(), isTritonError("UNAVAILABLE", /stopped/));
  await server.stop(); // a second stop is harmless
});

test("a failed request leaves the next one working", async () => {
  const server = await sharedServer();
  assert.throws(() => server.model("add_sub").infer({ inputs: {} }), TritonError);
  const [r] = await collect(server.model("add_sub").infer({ inputs: good }));
  assert.equal((r.outputs.OUTPUT0.data as Float32Array).length, 16);
});

test("a string holding a NUL character is INVALID_ARG, never cut short where C would end it", async () => {
  const server = await sharedServer();
  const nul = isTritonError("INVALID_ARG", /NUL character at index 7/);
  // Each of these would otherwise reach Triton as "add_sub", "request" or "INPUT0".
  assert.throws(() => server.model("add_sub\0x").infer({ inputs: good }), nul);
  assert.throws(
    () => server.model("add_sub").infer({ inputs: good, id: "request\0-7" }),
    isTritonError("INVALID_ARG", /NUL character/),
  );
  assert.throws(
    () => server.model("add_sub").infer({ inputs: { ...good, "INPUT0\0": new Float32Array(16) } }),
    isTritonError("INVALID_ARG", /NUL character/),
  );
  await assert.rejects(server.loadModel("add_sub\0x"), isTritonError("INVALID_ARG", /add_sub/));
  await assertNoLiveRequests();
  const [r] = await collect(server.model("add_sub").infer({ inputs: good }));
  assert.equal(r.output("OUTPUT0", "FP32").data.length, 16);
});

test("a binding setting it does not take: TritonError INVALID_ARG naming the accepted values", async () => {
  const cases: [string, RegExp][] = [
    [
      "TRITONFFI_CALLBACKS",
      /^TRITONFFI_CALLBACKS must be "native", "js" or "auto" \(or unset\), not "bogus"$/,
    ],
    ["TRITONFFI_POLL_US", /^TRITONFFI_POLL_US must be a number of microseconds ≥ 0, not "bogus"$/],
    [
      "TRITONFFI_DELETE_THREAD",
      /^TRITONFFI_DELETE_THREAD must be "on" or "off" \(or unset\), not "bogus"$/,
    ],
    [
      "TRITONFFI_REQUEST_SUBMITTER",
      /^TRITONFFI_REQUEST_SUBMITTER must be "on" or "off" \(or unset\), not "bogus"$/,
    ],
  ];
  for (const [name, message] of cases) {
    // The callback path the run under test chose would hide the variable asked about.
    const r = await runScript("support/bad_setting.ts", {
      TRITONFFI_CALLBACKS: "native",
      [name]: "bogus",
    });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const line = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    assert.equal(line.name, "TritonError", `${name}: ${r.stdout}`);
    assert.equal(line.code, "INVALID_ARG", name);
    assert.match(line.message, message);
  }
});
