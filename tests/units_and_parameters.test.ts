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

test("timeoutUs is the request timeout in microseconds; timeout, its old name, still works", async () => {
  const server = await sharedServer();
  const model = server.model("identity_int32");
  for (
    const [options, us] of [[{ timeoutUs: 2_500_000 }, 2_500_000n], [
      { timeout: 7_000 },
      7_000n,
    ]] as const
  ) {
    const [r] = await collect(model.infer({ inputs, ...options }));
    assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [1, 2]);
    if (probe) assert.equal(probe.lastTimeoutUs(), us);
  }
  await collect(model.infer({ inputs, timeoutUs: 5n, timeout: 5 })); // the same value twice: fine
  assert.throws(
    () => model.infer({ inputs, timeoutUs: 5, timeout: 6 }),
    isTritonError("INVALID_ARG", /timeoutUs \(5\) contradicts timeout \(6\)/),
  );
  assert.throws(
    () => model.infer({ inputs, timeoutUs: -1 }),
    isTritonError("INVALID_ARG", /timeoutUs must be an unsigned 64-bit integer/),
  );
});

test("start({ timeoutMs }) and unloadModel({ timeoutMs }) are milliseconds; timeout still works", async () => {
  const server = new Server({ modelRepository: MODEL_REPOSITORY, modelControlMode: "explicit" });
  await assert.rejects(
    server.start({ timeoutMs: -1 }),
    isTritonError("INVALID_ARG", /timeoutMs must be a number of milliseconds >= 0/),
  );
  await assert.rejects(
    new Server({ modelRepository: MODEL_REPOSITORY }).start({ timeoutMs: 10, timeout: 20 }),
    isTritonError("INVALID_ARG", /timeoutMs \(10\) contradicts timeout \(20\)/),
  );
  const started = await new Server({
    modelRepository: MODEL_REPOSITORY,
    modelControlMode: "explicit",
    logInfo: false,
    logWarn: false,
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
    await started.unloadModel("identity_int32", { waitUntilUnloaded: true, timeout: 10_000 });
    assert.deepEqual(started.models({ readyOnly: true }), []);
  } finally {
    await started.stop();
  }
});

test("exitTimeoutSecs is stop()'s wait in seconds; exitTimeout, its old name, still works", async () => {
  for (
    const options of [{ exitTimeoutSecs: 3 }, { exitTimeout: 3 }, {
      exitTimeoutSecs: 3,
      exitTimeout: 3,
    }]
  ) {
    const server = await startServer({ exitTimeout: undefined, ...options }); // no default
    assert.equal(server.ready(), true);
    await server.stop();
  }
  await assert.rejects(
    startServer({ exitTimeoutSecs: 1.5 }),
    isTritonError("INVALID_ARG", /exitTimeoutSecs must be a whole number of seconds/),
  );
  await assert.rejects(
    startServer({ exitTimeoutSecs: 5, exitTimeout: 6 }),
    isTritonError("INVALID_ARG", /exitTimeoutSecs \(5\) contradicts exitTimeout \(6\)/),
  );
});
