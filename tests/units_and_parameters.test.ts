import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { Server } from "../mod.ts";
import { isTritonError } from "./support/assertions.ts";
import {
  collect,
  fakeProbe,
  MODEL_REPOSITORY,
  sharedServer,
  startServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

const probe = await fakeProbe();
const inputs = {
  INPUT0: { dtype: "INT32" as const, shape: [1, 2], data: new Int32Array([1, 2]) },
};

test('request parameters go out with their Triton type; { type: "DOUBLE" } sends 1 as DOUBLE', async () => {
  const server = await sharedServer();
  const [r] = await collect(
    server.model("identity_int32").infer({
      inputs,
      parameters: {
        temperature: { type: "DOUBLE", value: 1 },
        plain_one: 1,
        half: 0.5,
        huge: 2 ** 60, // beyond 2^53: not an exact integer, so DOUBLE
        big: 2n ** 40n,
        steps: { type: "INT", value: 3 },
        name: "text",
        named: { type: "STRING", value: "more" },
        flag: true,
        off: { type: "BOOL", value: false },
      },
    }),
  );
  assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [1, 2]);
  // Only the fake core shows what the request carried; a real core accepting it is the check.
  if (probe) {
    assert.equal(
      probe.lastParameters(),
      [
        "temperature=DOUBLE:1",
        "plain_one=INT:1",
        "half=DOUBLE:0.5",
        "huge=DOUBLE:1.152921504606847e+18",
        "big=INT:1099511627776",
        "steps=INT:3",
        "name=STRING:text",
        "named=STRING:more",
        "flag=BOOL:true",
        "off=BOOL:false",
      ].join(";"),
    );
  }
});

test("typed request parameters that do not fit their type are INVALID_ARG before any C call", async () => {
  const server = await sharedServer();
  const model = server.model("identity_int32");
  const bad: [unknown, RegExp][] = [
    [{ type: "DOUBLE", value: "1" }, /parameter 'p' of type DOUBLE must be a number/],
    [{ type: "INT", value: 1.5 }, /parameter 'p' of type INT must be an integer/],
    [{ type: "INT", value: 2n ** 63n }, /parameter 'p' of type INT must fit in 64 bits/],
    [2n ** 63n, /parameter 'p' of type INT must fit in 64 bits/],
    [{ type: "STRING", value: 3 }, /parameter 'p' of type STRING must be a string/],
    [{ type: "BOOL", value: 1 }, /parameter 'p' of type BOOL must be a boolean/],
    [{ type: "FP32", value: 1 }, /parameter 'p' has type FP32; the type must be one of INT/],
    [null, /parameter 'p' has unsupported type null/],
  ];
  for (const [value, pattern] of bad) {
    assert.throws(
      () => model.infer({ inputs, parameters: { p: value as never } }),
      isTritonError("INVALID_ARG", pattern),
    );
  }
});

test("timeoutUs is the request timeout in microseconds; the old name timeout is refused", async () => {
  const server = await sharedServer();
  const model = server.model("identity_int32");
  const [r] = await collect(model.infer({ inputs, timeoutUs: 2_500_000 }));
  assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [1, 2]);
  if (probe) assert.equal(probe.lastTimeoutUs(), 2_500_000n);
  assert.throws(
    () => model.infer({ inputs, timeout: 7_000 } as never),
    isTritonError(
      "INVALID_ARG",
      /unknown field 'timeout' .*give timeoutUs \(microseconds\) instead/,
    ),
  );
  assert.throws(
    () => model.infer({ inputs, timeoutUs: -1 }),
    isTritonError("INVALID_ARG", /timeoutUs must be an unsigned 64-bit integer/),
  );
});

test("start({ timeoutMs }) and unloadModel({ timeoutMs }) are milliseconds; the old name timeout is refused", async () => {
  const server = new Server({ modelRepository: MODEL_REPOSITORY, modelControlMode: "explicit" });
  await assert.rejects(
    server.start({ timeoutMs: -1 }),
    isTritonError("INVALID_ARG", /timeoutMs must be a number of milliseconds >= 0/),
  );
  await assert.rejects(
    new Server({ modelRepository: MODEL_REPOSITORY }).start({ timeout: 20 } as never),
    isTritonError(
      "INVALID_ARG",
      /unknown field 'timeout' .*give timeoutMs \(milliseconds\) instead/,
    ),
  );
  const started = await new Server({
    modelRepository: MODEL_REPOSITORY,
    modelControlMode: "explicit",
    log: { info: false, warn: false },
  }).start({ timeoutMs: 20_000 });
  try {
    assert.equal(started.ready(), true);
    await started.loadModel("identity_int32");
    await assert.rejects(
      started.unloadModel("identity_int32", { waitUntilUnloaded: true, timeoutMs: "1" as never }),
      isTritonError("INVALID_ARG", /timeoutMs must be a number of milliseconds/),
    );
    await started.unloadModel("identity_int32", { waitUntilUnloaded: true, timeoutMs: 10_000 });
    assert.deepEqual(started.models({ readyOnly: true }), []);
    await started.loadModel("identity_int32");
    await assert.rejects(
      started.unloadModel("identity_int32", { timeout: 10_000 } as never),
      isTritonError("INVALID_ARG", /unknown field 'timeout' .*give timeoutMs/),
    );
    assert.deepEqual(started.models({ readyOnly: true }).map((m) => m.name), ["identity_int32"]);
  } finally {
    await started.stop();
  }
});

test("exitTimeoutSecs is stop()'s wait in seconds; exitTimeout, its old name, is refused", async () => {
  const server = await startServer({ exitTimeoutSecs: 3 });
  assert.equal(server.ready(), true);
  await server.stop();
  await assert.rejects(
    startServer({ exitTimeoutSecs: 1.5 }),
    isTritonError("INVALID_ARG", /exitTimeoutSecs must be a whole number of seconds/),
  );
  await assert.rejects(
    startServer({ exitTimeoutSecs: undefined, exitTimeout: 5 } as never),
    isTritonError("INVALID_ARG", /unknown option exitTimeout \(give exitTimeoutSecs instead\)/),
  );
});
