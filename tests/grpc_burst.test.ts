/**
 * No client can kill the gRPC service: bursts of calls from a `@grpc/grpc-js` client, its channel
 * closed at once after each (130 at a time, 300 at a time, 130 one after another), and from a bare
 * `node:http2` client that sends GOAWAY, or drops its socket, with its calls still in flight —
 * what aborted Deno 2.9's `node:http2` server (see deno_http2.ts, beside serveGrpc()'s
 * service.ts). The service runs in a child process on the runtime under test, so that an abort
 * is seen rather than suffered; after every burst it must still be running and answer
 * ServerLive. On Deno, where it would not survive, `serveGrpc()` must refuse to serve unless
 * opted in, saying why and naming the opt-in.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as http2 from "node:http2";
import { connect } from "node:net";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { test } from "./support/test.ts";
import type { GrpcTransportName } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { runtimeName } from "../ffi/mod.ts";
import { MODEL_REPOSITORY } from "./support/env.ts";
import { runtimeCommand } from "./runtime_command.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const runtime = runtimeName();
const Client = grpc.makeGenericClientConstructor(serviceDefinitions().inference, "Inference");
type LiveClient = grpc.Client & {
  ServerLive(request: object, done: (e: grpc.ServiceError | null, r?: unknown) => void): void;
};

/** A service in a child process: its port (or why it refused) and how it ended, if it did. */
interface Child {
  readonly process: ChildProcess;
  /** `port <n>` or `refused <code>: <message>`. */
  readonly said: string;
  readonly port: number;
  /** "code/signal" once it exited. */
  exit(): string | undefined;
  readonly stderr: () => string;
}

/** Starts tests/support/grpc_burst_server.ts on this runtime with `env` added (a key set to
 * undefined is left out) and waits for its first line. */
async function startChild(env: Record<string, string | undefined>): Promise<Child> {
  const [cmd, args] = runtimeCommand(root, runtime, "tests/support/grpc_burst_server.ts", {
    deno: ["--allow-net"],
  });
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, MODEL_REPOSITORY, ...env })) {
    if (v !== undefined) childEnv[k] = v;
  }
  const child = spawn(cmd, args, { cwd: root, env: childEnv });
  let stderr = "";
  let exit: string | undefined;
  child.stderr!.on("data", (d: Buffer) => stderr += d);
  const exited = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      exit = `${code}/${signal}`;
      resolve();
    })
  );
  const said = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no answer in 60 s: ${stderr}`)), 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const line = /^(port \d+|refused .*)$/m.exec(out);
      if (line) {
        clearTimeout(timer);
        resolve(line[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited ${exit} before answering: ${stderr}`));
    });
  });
  return {
    process: child,
    said,
    port: Number(/^port (\d+)$/.exec(said)?.[1] ?? NaN),
    exit: () => exit,
    stderr: () => stderr,
  };
}

/** Kills `child` and waits for it to exit. */
async function stop(child: Child): Promise<void> {
  if (child.exit() !== undefined) return;
  const exited = new Promise((resolve) => child.process.on("exit", resolve));
  child.process.kill("SIGKILL");
  await exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `n` ServerLive calls on a new grpc-js channel, all at once or one after another, then the
 * channel closed; the answers. */
async function grpcBurst(port: number, n: number, oneAtATime: boolean): Promise<unknown[]> {
  const client = new Client(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  ) as unknown as LiveClient;
  const call = () =>
    new Promise<unknown>((resolve, reject) =>
      client.ServerLive({}, (e, r) => e ? reject(e) : resolve(r))
    );
  try {
    if (!oneAtATime) return await Promise.all(Array.from({ length: n }, call));
    const answers: unknown[] = [];
    for (let i = 0; i < n; i++) answers.push(await call());
    return answers;
  } finally {
    client.close();
  }
}

/** `n` ServerLive calls opened at once on a bare `node:http2` session, which then sends GOAWAY or
 * drops its socket while they are in flight; how many were answered OK. */
async function rawBurst(port: number, n: number, end: "goaway" | "drop"): Promise<number> {
  const socket = connect(port, "127.0.0.1");
  const session = http2.connect(`http://127.0.0.1:${port}`, { createConnection: () => socket });
  session.on("error", () => {});
  const call = () =>
    new Promise<boolean>((resolve) => {
      const stream = session.request({
        ":method": "POST",
        ":path": "/inference.GRPCInferenceService/ServerLive",
        "content-type": "application/grpc",
        te: "trailers",
      });
      let status: unknown;
      stream.on("response", (h) => status ??= h["grpc-status"]);
      stream.on("trailers", (t) => status = t["grpc-status"]);
      stream.on("error", () => {});
      stream.on("close", () => resolve(status === "0"));
      stream.resume();
      stream.end(new Uint8Array(5)); // one empty message
    });
  const calls = Array.from({ length: n }, call);
  await sleep(5);
  if (end === "goaway") session.goaway(http2.constants.NGHTTP2_NO_ERROR);
  else socket.destroy();
  const answered = (await Promise.all(calls)).filter(Boolean).length;
  session.destroy();
  return answered;
}

/** Asserts that `child` is still running and answers ServerLive on a new channel. */
async function assertAlive(child: Child, after: string): Promise<void> {
  await sleep(200); // the aborts came within 100 ms of the channel's close
  assert.equal(child.exit(), undefined, `the service exited after ${after}: ${child.stderr()}`);
  assert.deepEqual(await grpcBurst(child.port, 1, false), [{ live: true }], after);
  assert.equal(child.exit(), undefined, `the service exited after ${after}: ${child.stderr()}`);
}

const DENO_FAULT = "Deno 2.9's node:http2 server aborts under these bursts (see " +
  "deno_http2.ts), so serveGrpc() refuses Deno unless opted in: tested below";

for (const transport of ["grpc-js", "http2"] as GrpcTransportName[]) {
  test(`${transport}: a service survives grpc-js bursts and clients leaving mid-burst`, {
    skip: runtime === "deno" && DENO_FAULT,
    timeout: 60_000,
  }, async () => {
    const child = await startChild({ TRANSPORT: transport });
    try {
      assert.match(child.said, /^port \d+$/);
      for (const [n, oneAtATime] of [[130, false], [300, false], [130, true]] as const) {
        const answers = await grpcBurst(child.port, n, oneAtATime);
        assert.equal(answers.length, n);
        assert.ok(answers.every((a) => (a as { live?: boolean }).live === true));
        await assertAlive(child, `${n} calls${oneAtATime ? " one at a time" : ""}`);
      }
      for (const end of ["goaway", "drop"] as const) {
        const answered = await rawBurst(child.port, 300, end);
        assert.ok(answered <= 300);
        await assertAlive(child, `300 calls and a client's ${end} mid-burst`);
      }
    } finally {
      await stop(child);
    }
  });
}

test("on Deno, serveGrpc() refuses to serve unless opted in, saying why", {
  skip: runtime !== "deno" && "Deno only: Bun and Node serve without it",
  timeout: 60_000,
}, async () => {
  const refused = await startChild({ TRITONFFI_ALLOW_DENO_HTTP2: undefined });
  await stop(refused);
  assert.match(refused.said, /^refused UNSUPPORTED: serveGrpc\(\) does not serve on Deno/);
  assert.match(refused.said, /crashed by any client/);
  assert.match(refused.said, /\{ allowDenoHttp2: true \}/);
  assert.match(refused.said, /TRITONFFI_ALLOW_DENO_HTTP2=1/);
  const allowed = await startChild({ TRITONFFI_ALLOW_DENO_HTTP2: "1" });
  try {
    assert.match(allowed.said, /^port \d+$/);
    assert.deepEqual(await grpcBurst(allowed.port, 1, false), [{ live: true }]);
  } finally {
    await stop(allowed);
  }
});

test(
  "allowDenoHttp2 takes a boolean, TRITONFFI_ALLOW_DENO_HTTP2 0 or 1 (else INVALID_ARG)",
  {
    timeout: 60_000,
  },
  async () => {
    const badEnv = await startChild({ TRITONFFI_ALLOW_DENO_HTTP2: "yes" });
    await stop(badEnv);
    assert.equal(
      badEnv.said,
      'refused INVALID_ARG: TRITONFFI_ALLOW_DENO_HTTP2 must be "0" or "1", not the string "yes"',
    );
    const badOption = await startChild({ ALLOW_DENO_HTTP2_OPTION: '"yes"' });
    await stop(badOption);
    assert.equal(
      badOption.said,
      'refused INVALID_ARG: allowDenoHttp2 must be a boolean, not the string "yes"',
    );
    // The option, where given, is what counts: false refuses on Deno whatever the environment says.
    const no = await startChild({
      ALLOW_DENO_HTTP2_OPTION: "false",
      TRITONFFI_ALLOW_DENO_HTTP2: "1",
    });
    await stop(no);
    if (runtime === "deno") assert.match(no.said, /^refused UNSUPPORTED: /);
    else assert.match(no.said, /^port \d+$/);
  },
);
