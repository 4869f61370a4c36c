/**
 * The paths of the size tests (tests/size_matrix.test.ts, tests/property_sizes.test.ts): a server
 * served over HTTP and gRPC, and for each way a tensor travels an `echo` that sends a
 * {@link SizeCase} to its identity model and asserts the output is the case's data type, shape and
 * bytes exactly.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { kserveHandler } from "../../serve.ts";
import { type GrpcService, type GrpcTransportName, serveGrpc } from "../../grpc.ts";
import { serviceDefinitions } from "../../serving/kserve/grpc/definitions.ts";
import {
  binaryBody,
  parseExact,
  postBinary,
  postJson,
  readInferResponse,
  type Serving,
  sseEvents,
  startServing,
  stopServing,
} from "./serve.ts";
import {
  assertSameBytes,
  assertShape,
  type Busy,
  bytesOfJson,
  jsonData,
  modelOf,
  type SizeCase,
  tensorOf,
} from "./sizes.ts";

import { GRPC_SKIP } from "./env.ts";

type Msg = Record<string, unknown>;

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");

/** The gRPC transports, each served and checked: none where gRPC is not served (GRPC_SKIP). */
export const GRPC_TRANSPORTS: readonly GrpcTransportName[] = GRPC_SKIP ? [] : ["grpc-js", "http2"];

/** A gRPC service and a client of it (one channel). */
export interface GrpcServing {
  readonly service: GrpcService;
  readonly client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
}

/** A server served over HTTP (a socket) and gRPC (a service on each transport, with a client
 * each), and the KServe handler (no socket). */
export interface SizeServing extends Busy {
  readonly serving: Serving;
  readonly grpc: Readonly<Record<GrpcTransportName, GrpcServing>>;
  readonly handler: (request: Request) => Promise<Response>;
}

/** Starts {@link SizeServing}: every model loaded, the front ends on free loopback ports. */
export async function startSizeServing(): Promise<SizeServing> {
  const serving = await startServing();
  const grpcServing = {} as Record<GrpcTransportName, GrpcServing>;
  for (const transport of GRPC_TRANSPORTS) {
    const service = await serveGrpc(serving.server, { port: 0, transport });
    // grpc-js clients take messages of 4 MiB at most unless told otherwise.
    const client = new Client(service.address, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
    }) as GrpcServing["client"];
    grpcServing[transport] = { service, client };
  }
  return {
    serving,
    server: serving.server,
    grpc: grpcServing,
    handler: kserveHandler(serving.server),
    services: [
      {
        name: "HTTP service",
        get active() {
          return serving.http.active;
        },
      },
      ...GRPC_TRANSPORTS.map((transport) => ({
        name: `gRPC service (${transport})`,
        get active() {
          return grpcServing[transport].service.active;
        },
      })),
    ],
  };
}

/** Closes the clients and the front ends, then stops the server. */
export async function stopSizeServing(s: SizeServing | undefined): Promise<void> {
  if (!s) return;
  for (const { service, client } of Object.values(s.grpc)) {
    client.close();
    await service.close();
  }
  await stopServing(s.serving);
}

/** One path a tensor takes: `echo` sends the case to its identity model and asserts the output
 * is its data type, shape and bytes exactly. */
export interface Path {
  readonly name: string;
  /** Whether the data goes as JSON (its cases are made JSON-safe; FP16/BF16 cannot go). */
  readonly json: boolean;
  /** Why the path does not run here (its tests skip with it), or false. */
  readonly skip: string | false;
  echo(c: SizeCase): Promise<void>;
}

/** The paths over the {@link SizeServing} `get` returns when they are used. */
export function sizePaths(get: () => SizeServing) {
  const what = (path: Path, c: SizeCase) => `${path.name}: ${c.label}`;

  /** JSON text parsed with exact 64-bit integers where it has any (lossless-json is slow). */
  function parseOutput(text: string): Msg {
    return (/\d{16}/.test(text) ? parseExact(text) : JSON.parse(text)) as Msg;
  }

  /** The first 300 characters of a body, for a failure message. */
  const head = (text: string) => text.length > 300 ? `${text.slice(0, 300)}…` : text;

  const inProcessInfer: Path = {
    name: "in-process infer()",
    json: false,
    skip: false,
    async echo(c) {
      let count = 0;
      const stream = get().server.model(modelOf(c.dtype)).infer({
        inputs: { INPUT0: tensorOf(c) },
      });
      for await (const response of stream) {
        try {
          count++;
          const out = response.output("OUTPUT0", c.dtype);
          assertShape(out.shape, c.shape, what(this, c));
          assertSameBytes(out.toBytes(), c.bytes, what(this, c));
        } finally {
          response.dispose();
        }
      }
      assert.equal(count, 1, `${what(this, c)}: responses`);
    },
  };

  const inProcessInferOne: Path = {
    name: "in-process inferOne()",
    json: false,
    skip: false,
    async echo(c) {
      const response = await get().server.model(modelOf(c.dtype)).inferOne({
        inputs: { INPUT0: tensorOf(c) },
      });
      try {
        const out = response.output("OUTPUT0", c.dtype);
        assert.equal(out.dtype, c.dtype);
        assertShape(out.shape, c.shape, what(this, c));
        assertSameBytes(out.toBytes(), c.bytes, what(this, c));
      } finally {
        response.dispose();
      }
    },
  };

  /** The JSON text of an infer request with the case as JSON data. */
  function inferJson(c: SizeCase): string {
    return `{"inputs":[{"name":"INPUT0","datatype":"${c.dtype}","shape":[${c.shape}],` +
      `"data":${jsonData(c)}}]}`;
  }

  const httpJson: Path = {
    name: "HTTP infer (JSON)",
    json: true,
    skip: false,
    async echo(c) {
      const r = await postJson(
        `${get().serving.url}/v2/models/${modelOf(c.dtype)}/infer`,
        inferJson(c),
      );
      const text = await r.text();
      assert.equal(r.status, 200, `${what(this, c)}: ${head(text)}`);
      const out = (parseOutput(text).outputs as Msg[])[0];
      assert.equal(out.name, "OUTPUT0");
      assert.equal(out.datatype, c.dtype);
      assertShape(out.shape as number[], c.shape, what(this, c));
      assertSameBytes(bytesOfJson(c.dtype, out.data as unknown[]), c.bytes, what(this, c));
    },
  };

  let binaryAsks = 0;

  /** The JSON header of a binary infer request for the case, asking for binary output with the
   * request's `binary_data_output` and an output's `binary_data` in turn. */
  function binaryHeader(c: SizeCase): Msg {
    const input = {
      name: "INPUT0",
      datatype: c.dtype,
      shape: c.shape,
      parameters: { binary_data_size: c.bytes.byteLength },
    };
    return binaryAsks++ % 2 === 0
      ? { inputs: [input], parameters: { binary_data_output: true } }
      : { inputs: [input], outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }] };
  }

  /** Checks a binary infer response's one output. */
  async function checkBinary(path: Path, c: SizeCase, r: Response): Promise<void> {
    if (r.status !== 200) assert.fail(`${what(path, c)}: ${r.status} ${head(await r.text())}`);
    const read = await readInferResponse(r);
    const out = (read.json.outputs as Msg[])[0];
    assert.equal(out.name, "OUTPUT0");
    assert.equal(out.datatype, c.dtype);
    assertShape(out.shape as number[], c.shape, what(path, c));
    assert.equal(
      Number((out.parameters as Msg).binary_data_size),
      c.bytes.byteLength,
      `${what(path, c)}: binary_data_size`,
    );
    assertSameBytes(read.binary.get("OUTPUT0"), c.bytes, what(path, c));
  }

  const httpBinary: Path = {
    name: "HTTP infer (binary)",
    json: false,
    skip: false,
    async echo(c) {
      const url = `${get().serving.url}/v2/models/${modelOf(c.dtype)}/infer`;
      const r = await postBinary(url, binaryHeader(c), [c.bytes]);
      await checkBinary(this, c, r);
    },
  };

  const handlerBinary: Path = {
    name: "kserveHandler (binary, no socket)",
    json: false,
    skip: false,
    async echo(c) {
      const { body, headerLength } = binaryBody(binaryHeader(c), [c.bytes]);
      const r = await get().handler(
        new Request(`http://localhost/v2/models/${modelOf(c.dtype)}/infer`, {
          method: "POST",
          body,
          headers: { "inference-header-content-length": String(headerLength) },
        }),
      );
      await checkBinary(this, c, r);
    },
  };

  /** Checks a generate response object's OUTPUT0 (an array; the element itself when there is
   * one). */
  function checkGenerated(path: Path, c: SizeCase, event: Msg): void {
    assert.equal(event.model_name, modelOf(c.dtype), what(path, c));
    const out = event.OUTPUT0;
    const data = c.shape[1] === 1 ? [out] : out;
    assert.ok(Array.isArray(data), `${what(path, c)}: OUTPUT0 is ${typeof out}`);
    assertSameBytes(bytesOfJson(c.dtype, data), c.bytes, what(path, c));
  }

  /** POSTs a generate body: the case's elements as INPUT0 (shaped [1, n] from the model's [-1]). */
  function postGenerate(c: SizeCase, endpoint: "generate" | "generate_stream"): Promise<Response> {
    return postJson(
      `${get().serving.url}/v2/models/${modelOf(c.dtype)}/${endpoint}`,
      `{"INPUT0":${jsonData(c)}}`,
    );
  }

  const generate: Path = {
    name: "HTTP generate",
    json: true,
    skip: false,
    async echo(c) {
      const r = await postGenerate(c, "generate");
      const text = await r.text();
      assert.equal(r.status, 200, `${what(this, c)}: ${head(text)}`);
      checkGenerated(this, c, parseOutput(text));
    },
  };

  const generateStream: Path = {
    name: "HTTP generate_stream (SSE)",
    json: true,
    skip: false,
    async echo(c) {
      const r = await postGenerate(c, "generate_stream");
      const text = await r.text();
      assert.equal(r.status, 200, `${what(this, c)}: ${head(text)}`);
      assert.equal(r.headers.get("content-type"), "text/event-stream; charset=utf-8");
      const events = /\d{16}/.test(text)
        ? text.split("\n\n").filter((e) => e.trim() !== "").map((e) => {
          assert.match(e, /^data: /);
          return parseExact(e.slice("data: ".length)) as Msg;
        })
        : sseEvents(text) as Msg[];
      assert.equal(events.length, 1, `${what(this, c)}: events`);
      checkGenerated(this, c, events[0]);
    },
  };

  /** A ModelInferRequest of the case with raw contents. */
  function grpcRequest(c: SizeCase, id = ""): Msg {
    return {
      model_name: modelOf(c.dtype),
      id,
      inputs: [{ name: "INPUT0", datatype: c.dtype, shape: c.shape }],
      raw_input_contents: [c.bytes],
    };
  }

  /** Checks a ModelInferResponse's one output. */
  function checkGrpc(path: Path, c: SizeCase, r: Msg): void {
    const outputs = r.outputs as Msg[];
    assert.equal(outputs.length, 1, `${what(path, c)}: outputs`);
    assert.equal(outputs[0].name, "OUTPUT0");
    assert.equal(outputs[0].datatype, c.dtype);
    assertShape(outputs[0].shape as string[], c.shape, what(path, c));
    const raw = r.raw_output_contents as Uint8Array[];
    assert.equal(raw.length, 1, `${what(path, c)}: raw_output_contents entries`);
    assertSameBytes(raw[0], c.bytes, what(path, c));
  }

  /** gRPC ModelInfer with raw contents, on `transport`. */
  const grpcUnaryOn = (transport: GrpcTransportName): Path => ({
    name: `gRPC ModelInfer (raw, ${transport})`,
    json: false,
    skip: GRPC_SKIP,
    async echo(c) {
      const r = await new Promise<Msg>((resolve, reject) =>
        get().grpc[transport].client.ModelInfer(
          grpcRequest(c),
          (e: grpc.ServiceError | null, m: Msg) => (e ? reject(e) : resolve(m)),
        )
      );
      checkGrpc(this, c, r);
    },
  });

  /** Which transport each ModelStreamInfer path runs on. */
  const streamTransports = new Map<Path, GrpcTransportName>();

  /** Sends `cases` on one ModelStreamInfer stream (ids "0", "1", …) and checks each echo. */
  async function streamEcho(path: Path, cases: readonly SizeCase[]): Promise<void> {
    const client = get().grpc[streamTransports.get(path)!].client;
    const got = await new Promise<Msg[]>((resolve, reject) => {
      const out: Msg[] = [];
      const st = client.ModelStreamInfer() as grpc.ClientDuplexStream<Msg, Msg>;
      st.on("data", (m: Msg) => out.push(m));
      st.on("error", reject);
      st.on("end", () => resolve(out));
      cases.forEach((c, i) => st.write(grpcRequest(c, String(i))));
      st.end();
    });
    assert.equal(got.length, cases.length, `${path.name}: messages`);
    const seen = new Set<number>();
    for (const m of got) {
      assert.equal(m.error_message, "", `${path.name}: an error on the stream`);
      const r = m.infer_response as Msg;
      const i = Number(r.id);
      const c = cases[i];
      assert.ok(c !== undefined && !seen.has(i), `${path.name}: a response with id '${r.id}'`);
      seen.add(i);
      checkGrpc(path, c, r);
    }
  }

  /** gRPC ModelStreamInfer, one case per stream, on `transport`. */
  const grpcStreamOn = (transport: GrpcTransportName): Path => {
    const path: Path = {
      name: `gRPC ModelStreamInfer (${transport})`,
      json: false,
      skip: GRPC_SKIP,
      echo(c) {
        return streamEcho(this, [c]);
      },
    };
    streamTransports.set(path, transport);
    return path;
  };

  const grpcUnary = grpcUnaryOn("grpc-js");
  const grpcStream = grpcStreamOn("grpc-js");
  const grpcUnaryH2 = grpcUnaryOn("http2");
  const grpcStreamH2 = grpcStreamOn("http2");

  return {
    inProcessInfer,
    inProcessInferOne,
    httpJson,
    httpBinary,
    handlerBinary,
    generate,
    generateStream,
    grpcUnary,
    grpcStream,
    grpcUnaryH2,
    grpcStreamH2,
    streamEcho,
  };
}
