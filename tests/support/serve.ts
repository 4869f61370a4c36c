/**
 * What the HTTP serving tests share: a server with an HTTP service on a free port, a check that
 * nothing is left in flight or alive, raw-socket exchanges, and the binary tensor data layout.
 *
 * @module
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { parse as parseLossless } from "lossless-json";
import type { Server, ServerOptions } from "../../mod.ts";
import { type HttpService, serve, type ServeOptions } from "../../serve.ts";
import { liveCounter, SERVE_WORKERS, startServer } from "./env.ts";

/** A running server and an HTTP service over it. */
export interface Serving {
  readonly server: Server;
  readonly http: HttpService;
  readonly url: string;
}

/** Starts a server on tests/models (explicit model control, every model loaded) and serves it on
 * a free loopback port. */
export async function startServing(
  serveOptions: ServeOptions = {},
  serverOptions: Partial<ServerOptions> = {},
): Promise<Serving> {
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["*"],
    ...serverOptions,
  });
  const http = await serve(server, { port: 0, workers: SERVE_WORKERS, ...serveOptions });
  return { server, http, url: http.url };
}

/** Closes the HTTP service, then stops the server. */
export async function stopServing(s: Serving | undefined): Promise<void> {
  if (!s) return;
  await s.http.close();
  await s.server.stop();
}

/**
 * Waits until nothing is in flight: no HTTP request being served, no request in Triton, and on
 * the fake core no live request, response or allocator buffer. Fails the test otherwise.
 */
export async function settled(s: Serving, timeoutMs = 10_000): Promise<void> {
  const live = await liveCounter();
  const deadline = Date.now() + timeoutMs;
  const busy = () =>
    s.http.active > 0 || s.server.inflight > 0 ||
    (live !== undefined && (live("request") > 0 || live("response") > 0 || live("buffer") > 0));
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  // The binding deletes what a stream moved past on a later macrotask.
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(s.http.active, 0, "HTTP requests still being served");
  assert.equal(s.server.inflight, 0, "requests in flight in Triton");
  if (live) {
    assert.equal(live("request"), 0, "live requests");
    assert.equal(live("response"), 0, "live responses");
    assert.equal(live("buffer"), 0, "live allocator buffers");
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The number parser of {@link parseExact}: integers past 2^53 as bigint. */
function exactNumber(token: string): number | bigint {
  if (/^-?\d+$/.test(token)) {
    const n = Number(token);
    return Number.isSafeInteger(n) ? n : BigInt(token);
  }
  return Number(token);
}

/** Parses JSON keeping 64-bit integers exact (as bigint) and accepting only standard JSON. */
export function parseExact(text: string): unknown {
  return parseLossless(text, null, exactNumber);
}

/** A binary tensor request body: the JSON header, then the blobs. */
export function binaryBody(header: unknown, blobs: readonly Uint8Array[]): {
  body: Uint8Array<ArrayBuffer>;
  headerLength: number;
} {
  const json = encoder.encode(JSON.stringify(header));
  let size = json.byteLength;
  for (const b of blobs) size += b.byteLength;
  const body = new Uint8Array(size);
  body.set(json, 0);
  let at = json.byteLength;
  for (const b of blobs) {
    body.set(b, at);
    at += b.byteLength;
  }
  return { body, headerLength: json.byteLength };
}

/** POSTs a binary tensor request. */
export function postBinary(
  url: string,
  header: unknown,
  blobs: readonly Uint8Array[],
  headers: Record<string, string> = {},
): Promise<Response> {
  const { body, headerLength } = binaryBody(header, blobs);
  return fetch(url, {
    method: "POST",
    body,
    headers: { "inference-header-content-length": String(headerLength), ...headers },
  });
}

/** POSTs JSON. */
export function postJson(url: string, json: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    body: typeof json === "string" ? json : JSON.stringify(json),
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An inference response read whole: its JSON header (exact integers) and each binary output. */
export interface ReadResponse {
  readonly status: number;
  readonly contentType: string | null;
  readonly json: Record<string, unknown>;
  readonly binary: Map<string, Uint8Array>;
}

/** Reads an inference response; binary outputs are cut out of the body by their sizes. */
export async function readInferResponse(response: Response): Promise<ReadResponse> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const header = response.headers.get("inference-header-content-length");
  const jsonLength = header === null ? bytes.byteLength : Number(header);
  const json = parseExact(decoder.decode(bytes.subarray(0, jsonLength))) as Record<
    string,
    unknown
  >;
  const binary = new Map<string, Uint8Array>();
  let at = jsonLength;
  const outputs = (json.outputs ?? []) as {
    name: string;
    parameters?: { binary_data_size?: number };
  }[];
  for (const o of outputs) {
    const size = o.parameters?.binary_data_size;
    if (size === undefined) continue;
    binary.set(o.name, bytes.slice(at, at + size));
    at += size;
  }
  assert.equal(at, bytes.byteLength, "binary outputs fill the body exactly");
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    json,
    binary,
  };
}

/** The `data` events of a Server-Sent Events body, parsed. */
export function sseEvents(text: string): unknown[] {
  return text.split("\n\n").filter((e) => e.trim() !== "").map((event) => {
    assert.match(event, /^data: /, `an SSE data event: ${event}`);
    return JSON.parse(event.slice("data: ".length));
  });
}

/**
 * Writes `parts` to a TCP connection to `port` (with `pauseMs` between them), then reads until
 * the server closes the connection, what was received matches `until`, or `timeoutMs` passes;
 * returns everything received.
 * @param end half-close after the last part.
 */
export function rawExchange(
  port: number,
  parts: readonly (string | Uint8Array)[],
  options: { pauseMs?: number; timeoutMs?: number; end?: boolean; until?: RegExp } = {},
): Promise<{ text: string; closed: boolean }> {
  const { pauseMs = 0, timeoutMs = 5000, end = false, until } = options;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Uint8Array[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: decoder.decode(concat(chunks)), closed });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (d: Uint8Array) => {
      chunks.push(new Uint8Array(d));
      if (until && until.test(decoder.decode(concat(chunks)))) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", (e) => {
      if (!done && chunks.length === 0) {
        done = true;
        clearTimeout(timer);
        reject(e);
      } else finish(true);
    });
    socket.on("connect", async () => {
      for (const [i, p] of parts.entries()) {
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        socket.write(typeof p === "string" ? encoder.encode(p) : p);
      }
      if (end) socket.end();
    });
  });
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.byteLength;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The HTTP responses in a raw exchange: status line codes, in order. */
export function statusCodes(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
}
