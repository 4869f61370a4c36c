/**
 * gRPC straight on `node:http2`, without `@grpc/grpc-js`'s server: cleartext HTTP/2 (h2c, which
 * gRPC clients speak with prior knowledge), the framing and statuses of "gRPC over HTTP2", and
 * calls that give the handlers the part of grpc-js's server calls they use (./transport.ts).
 * Unary and bidirectional-streaming methods; messages in `identity`, `gzip` or `deflate`
 * (inflated under `maxMessageBytes`), responses compressed where `responseCompression` says.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ServiceDefinition } from "@grpc/grpc-js";
import { cannotListen } from "../../common/lifecycle.ts";
import { compressSync, type Encoding, inflateBounded } from "../../common/compression.ts";
import {
  ACCEPT_ENCODING,
  bracketed,
  type CallMetadata,
  type DuplexCall,
  type DuplexHandler,
  type GrpcListener,
  type GrpcListenOptions,
  type GrpcStatus,
  messageTooLarge,
  responseEncodingFor,
  Status,
  type UnaryCall,
  type UnaryHandler,
} from "./transport.ts";

/** A method as served: its handler, and how its messages are read and written. */
interface Route {
  readonly path: string;
  readonly streams: boolean;
  readonly handler: UnaryHandler | DuplexHandler;
  readonly deserialize: (bytes: Buffer) => unknown;
  readonly serialize: (message: unknown) => Buffer;
}

type Headers = http2.IncomingHttpHeaders;

const noop = () => {};

/** A thrown value's message. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What a handler ends a call with, as grpc-js reads it: `code` and `details` (or `message`). */
function toStatus(error: unknown): GrpcStatus {
  if (error === null || typeof error !== "object") {
    return { code: Status.UNKNOWN, details: String(error) };
  }
  const { code, details, message } = error as Record<string, unknown>;
  const text = typeof details === "string"
    ? details
    : typeof message === "string"
    ? message
    : "Unknown Error";
  return typeof code === "number" && Number.isInteger(code) && code >= 0 && code <= 16
    ? { code, details: text }
    : { code: Status.UNKNOWN, details: text };
}

const utf8 = new TextEncoder();

/** `grpc-message`'s percent-encoding: bytes outside printable ASCII, and `%`, as `%XX`. */
function percentEncoded(text: string): string {
  if (/^[\x20-\x24\x26-\x7e]*$/.test(text)) return text;
  let out = "";
  for (const byte of utf8.encode(text)) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The response headers of every call (a new object each time: `respond` adds to it), with
 * the encoding of its messages where they are compressed. */
function responseHeaders(encoding?: Encoding): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = {
    ":status": 200,
    "content-type": "application/grpc+proto",
    "grpc-accept-encoding": ACCEPT_ENCODING,
  };
  if (encoding !== undefined) headers["grpc-encoding"] = encoding;
  return headers;
}

/** `stream.respond`, false where the stream is already gone (a client's RST_STREAM not yet
 * seen as "close"). */
function respond(
  stream: http2.ServerHttp2Stream,
  headers: http2.OutgoingHttpHeaders,
  options: http2.ServerStreamResponseOptions,
): boolean {
  if (stream.destroyed || stream.closed) return false;
  try {
    stream.respond(headers, options);
    return true;
  } catch {
    return false;
  }
}

/** Ends a call that has sent nothing with `status` alone (a trailers-only response), and drops
 * what the client still sends. */
function trailersOnly(stream: http2.ServerHttp2Stream, status: GrpcStatus): void {
  respond(stream, {
    ...responseHeaders(),
    "grpc-status": String(status.code),
    "grpc-message": percentEncoded(status.details),
  }, { endStream: true });
  stream.resume();
}

/** A message payload up to this size is copied behind its prefix (one write); a larger one goes
 * as it is after the prefix (two writes, no copy). */
const COPY_BELOW = 16 * 1024;

/** Writes `payload` as one gRPC message (`flag` 1: compressed); `stream.write`'s answer (false:
 * the buffer is full). */
function writeMessage(stream: http2.ServerHttp2Stream, payload: Uint8Array, flag = 0): boolean {
  const n = payload.byteLength;
  if (n <= COPY_BELOW) {
    const frame = Buffer.allocUnsafe(5 + n);
    frame[0] = flag;
    frame.writeUInt32BE(n, 1);
    frame.set(payload, 5);
    return stream.write(frame);
  }
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = flag;
  prefix.writeUInt32BE(n, 1);
  stream.write(prefix);
  return stream.write(payload);
}

/**
 * Splits a call's DATA into gRPC messages (each a 1-byte compressed flag, a 4-byte big-endian
 * length, the payload). A message wholly inside one chunk is a view of it; one spanning chunks is
 * gathered into a buffer of its length, allocated once its prefix is read and checked. A
 * compressed message (flag 1) is taken where the call's `grpc-encoding` is one this transport
 * inflates.
 */
class MessageReader {
  readonly #max: number;
  /** The call's `grpc-encoding`: `identity` when none. */
  readonly #encoding: string;
  /** Whether each message added to `out` is compressed, in order. */
  readonly compressed: boolean[] = [];
  /** A prefix split across chunks, and how much of it came. */
  #prefix: Buffer | undefined;
  #prefixBytes = 0;
  /** A message spanning chunks, and how much of it came. */
  #message: Buffer | undefined;
  #messageFlag = 0;
  #filled = 0;

  constructor(max: number, encoding: string) {
    this.#max = max;
    this.#encoding = encoding;
  }

  /** Whether a message (or its prefix) is partly read. */
  get partial(): boolean {
    return this.#prefixBytes > 0 || this.#message !== undefined;
  }

  /** Adds `chunk`'s messages to `out`; a status where one is refused (those before it stay). */
  read(chunk: Buffer, out: Buffer[]): GrpcStatus | undefined {
    let at = 0;
    while (at < chunk.length) {
      const message = this.#message;
      if (message !== undefined) {
        const n = Math.min(chunk.length - at, message.length - this.#filled);
        chunk.copy(message, this.#filled, at, at + n);
        this.#filled += n;
        at += n;
        if (this.#filled === message.length) {
          out.push(message);
          this.compressed.push(this.#messageFlag === 1);
          this.#message = undefined;
        }
        continue;
      }
      let flag: number;
      let length: number;
      if (this.#prefixBytes === 0 && chunk.length - at >= 5) {
        flag = chunk[at];
        length = chunk.readUInt32BE(at + 1);
        at += 5;
      } else {
        const prefix = this.#prefix ??= Buffer.alloc(5);
        const n = Math.min(5 - this.#prefixBytes, chunk.length - at);
        chunk.copy(prefix, this.#prefixBytes, at, at + n);
        this.#prefixBytes += n;
        at += n;
        if (this.#prefixBytes < 5) break;
        this.#prefixBytes = 0;
        flag = prefix[0];
        length = prefix.readUInt32BE(1);
      }
      if (flag === 1) {
        const encoding = this.#encoding;
        if (encoding === "identity") {
          return {
            code: Status.INTERNAL,
            details: "Received a compressed message, but the call's grpc-encoding is identity",
          };
        }
        if (encoding !== "gzip" && encoding !== "deflate") {
          // As gRPC specifies (and grpc-js answers): the algorithm is not implemented here.
          return {
            code: Status.UNIMPLEMENTED,
            details: `Received message compressed with unsupported encoding "${encoding}"`,
          };
        }
      } else if (flag !== 0) {
        return { code: Status.INTERNAL, details: `Invalid message flag ${flag}` };
      }
      if (length > this.#max) return messageTooLarge("Received", length, this.#max);
      if (chunk.length - at >= length) {
        out.push(chunk.subarray(at, at + length));
        this.compressed.push(flag === 1);
        at += length;
      } else {
        this.#message = Buffer.allocUnsafe(length);
        this.#messageFlag = flag;
        this.#filled = 0;
      }
    }
    return undefined;
  }
}

/** Headers that are the transport's, not the call's metadata (as grpc-js removes them). */
const NOT_METADATA: ReadonlySet<string> = new Set([
  "grpc-timeout",
  "grpc-encoding",
  "grpc-accept-encoding",
  "accept-encoding",
  "te",
  "content-type",
]);

/** A call's metadata read from its request headers when asked (`grpc.Metadata`'s rules). */
class HeaderMetadata implements CallMetadata {
  readonly #headers: Headers;

  constructor(headers: Headers) {
    this.#headers = headers;
  }

  get(key: string): (string | Buffer)[] {
    const name = key.toLowerCase();
    if (name.startsWith(":") || NOT_METADATA.has(name)) return [];
    const value = this.#headers[name];
    if (value === undefined) return [];
    if (!name.endsWith("-bin")) return Array.isArray(value) ? [...value] : [value];
    const texts = Array.isArray(value) ? value : value.split(",");
    return texts.map((text) => Buffer.from(text.trim(), "base64"));
  }
}

/** `grpc-timeout`'s units, in milliseconds. */
const TIMEOUT_UNITS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};

/** The longest timer a runtime keeps (longer ones fire at once): a deadline past it is none. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** A `grpc-timeout` value (1–8 digits and a unit) in milliseconds; undefined if malformed. */
function timeoutMs(value: string | string[]): number | undefined {
  const m = typeof value === "string" ? /^(\d{1,8})([HMSmun])$/.exec(value) : null;
  return m ? Number(m[1]) * TIMEOUT_UNITS[m[2]] : undefined;
}

/** How a call's messages are encoded. */
interface CallEncoding {
  /** The request's `grpc-encoding` (`identity` when none). */
  readonly request: string;
  /** The responses' encoding; `undefined`: uncompressed. */
  readonly response: Encoding | undefined;
}

/**
 * One call's HTTP/2 stream: its request messages (compressed ones inflated, in order: the stream
 * pauses while one inflates), its response messages, its status and its deadline. The call
 * object sets the `on…` hooks.
 */
class Exchange {
  readonly stream: http2.ServerHttp2Stream;
  readonly #route: Route;
  readonly #max: number;
  readonly #reader: MessageReader;
  readonly #messages: Buffer[] = [];
  readonly #encoding: CallEncoding;
  /** The work queued behind a message being inflated (it included), in order, and how much. */
  #queue: Promise<void> = Promise.resolve();
  #queued = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #responded = false;
  /** Whether the call's status is decided: sent, or the stream gone. */
  done = false;
  /** A request message, decoded. */
  onMessage: (message: unknown) => void = noop;
  /** The client is done sending. */
  onEnd: () => void = noop;
  /** The call ended before the handler did: cancelled, gone, past its deadline, or refused. */
  onCancel: () => void = noop;
  /** The stream closed. */
  onClose: () => void = noop;

  constructor(
    stream: http2.ServerHttp2Stream,
    route: Route,
    max: number,
    encoding: CallEncoding,
    timeout?: number,
  ) {
    this.stream = stream;
    this.#route = route;
    this.#max = max;
    this.#encoding = encoding;
    this.#reader = new MessageReader(max, encoding.request);
    stream.on("data", (chunk: Buffer) => this.#read(chunk));
    stream.on("end", () => this.#ended());
    stream.on("close", () => this.#closed());
    if (timeout !== undefined && timeout <= LONGEST_TIMER_MS) {
      this.#timer = setTimeout(
        () => this.fail({ code: Status.DEADLINE_EXCEEDED, details: "Deadline exceeded" }),
        timeout,
      );
    }
  }

  #read(chunk: Buffer): void {
    if (this.done) return; // dropped: the call is over
    const messages = this.#messages;
    const compressed = this.#reader.compressed;
    const refused = this.#reader.read(chunk, messages);
    try {
      for (let i = 0; i < messages.length; i++) {
        if (this.done) return;
        const bytes = messages[i];
        if (compressed[i]) {
          // The stream waits while it inflates; what comes after waits its turn.
          this.stream.pause();
          this.#enqueue(() => this.#inflate(bytes));
        } else if (this.#queued > 0) this.#enqueue(() => this.#deliver(bytes));
        else this.#deliver(bytes);
      }
    } finally {
      messages.length = 0;
      compressed.length = 0;
    }
    if (refused === undefined) return;
    if (this.#queued > 0) this.#enqueue(() => this.fail(refused));
    else this.fail(refused);
  }

  /** Runs `task` once the work queued before it is done; the stream flows again once the queue
   * is empty. */
  #enqueue(task: () => void | Promise<void>): void {
    this.#queued++;
    this.#queue = this.#queue.then(task).catch((e) =>
      this.fail({ code: Status.INTERNAL, details: `Error reading request: ${messageOf(e)}` })
    ).then(() => {
      if (--this.#queued === 0 && !this.done) this.stream.resume();
    });
  }

  /** Inflates a compressed message and delivers it. */
  async #inflate(bytes: Buffer): Promise<void> {
    if (this.done) return;
    const max = this.#max;
    let inflated: Uint8Array | undefined;
    try {
      inflated = await inflateBounded(bytes, this.#encoding.request as Encoding, max);
    } catch {
      // Not in the call's format, corrupt or cut short (grpc-js's words).
      return this.fail({ code: Status.INTERNAL, details: "Failed to decompress message" });
    }
    if (inflated === undefined) {
      return this.fail({
        code: Status.RESOURCE_EXHAUSTED,
        details: `Received message that decompresses to a size larger than ${max} ` +
          "(maxMessageBytes)",
      });
    }
    this.#deliver(Buffer.from(inflated.buffer, inflated.byteOffset, inflated.byteLength));
  }

  /** Decodes a request message and hands it to the call. */
  #deliver(bytes: Buffer): void {
    if (this.done) return;
    let message: unknown;
    try {
      message = this.#route.deserialize(bytes);
    } catch (e) {
      return this.fail({
        code: Status.INTERNAL,
        details: `Error deserializing request: ${messageOf(e)}`,
      });
    }
    this.onMessage(message);
  }

  /** The client is done sending: once the messages before are delivered. */
  #ended(): void {
    if (this.#queued > 0) this.#enqueue(() => this.#end());
    else this.#end();
  }

  #end(): void {
    if (this.done) return;
    if (this.#reader.partial) {
      return this.fail({
        code: Status.INTERNAL,
        details: "The request stream ended inside a message",
      });
    }
    this.onEnd();
  }

  #closed(): void {
    clearTimeout(this.#timer);
    if (!this.done) {
      this.done = true;
      this.onCancel();
    }
    this.onClose();
  }

  /** Ends the call with `status` and tells the handler it is cancelled. */
  fail(status: GrpcStatus): void {
    if (this.done) return;
    this.sendStatus(status);
    this.onCancel();
  }

  /** Sends a response message; false when not sent (the call is over, or failed over it) or
   * when the stream's write buffer is full. */
  write(message: unknown): boolean {
    if (this.done) return false;
    let payload: Buffer;
    try {
      payload = this.#route.serialize(message);
    } catch (e) {
      this.fail({ code: Status.INTERNAL, details: `Error serializing response: ${messageOf(e)}` });
      return false;
    }
    if (payload.byteLength > this.#max) {
      this.fail(messageTooLarge("Sent", payload.byteLength, this.#max));
      return false;
    }
    const encoding = this.#encoding.response;
    if (!this.#responded) {
      this.#responded = true;
      const headers = responseHeaders(encoding);
      if (!respond(this.stream, headers, { waitForTrailers: true })) return false;
    }
    if (encoding !== undefined) {
      // As grpc++: a message that does not shrink goes uncompressed (flag 0).
      const compressed = compressSync(payload, encoding);
      if (compressed.byteLength < payload.byteLength) {
        return writeMessage(this.stream, compressed, 1);
      }
    }
    return writeMessage(this.stream, payload);
  }

  /** Ends the call with `status`: in the trailers, or alone where nothing was sent. */
  sendStatus(status: GrpcStatus): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.#timer);
    const stream = this.stream;
    if (!this.#responded) {
      this.#responded = true;
      return trailersOnly(stream, status);
    }
    if (stream.destroyed || stream.closed) return;
    const trailers = {
      "grpc-status": String(status.code),
      "grpc-message": percentEncoded(status.details),
    };
    stream.once("wantTrailers", () => {
      try {
        stream.sendTrailers(trailers);
      } catch {
        // The stream closed meanwhile: nothing is left to tell.
      }
    });
    stream.end();
  }
}

/** A unary call as the handler sees it. */
class H2UnaryCall implements UnaryCall {
  readonly request: unknown;
  readonly metadata: CallMetadata;
  #cancelled: (() => void)[] | undefined;

  constructor(request: unknown, metadata: CallMetadata) {
    this.request = request;
    this.metadata = metadata;
  }

  on(_event: "cancelled", listener: () => void): this {
    (this.#cancelled ??= []).push(listener);
    return this;
  }

  cancel(): void {
    for (const listener of this.#cancelled ?? []) listener();
  }
}

/** Reads a unary call's one request message, then runs its handler. */
function serveUnary(exchange: Exchange, route: Route, metadata: CallMetadata): void {
  let request: unknown;
  let count = 0;
  exchange.onMessage = (message) => {
    if (++count === 1) request = message;
    else {
      exchange.fail({
        code: Status.UNIMPLEMENTED,
        details: `Received a second request message for unary method ${route.path}`,
      });
    }
  };
  exchange.onEnd = () => {
    if (count === 0) {
      return exchange.fail({
        code: Status.UNIMPLEMENTED,
        details: `Received no request message for unary method ${route.path}`,
      });
    }
    const call = new H2UnaryCall(request, metadata);
    exchange.onCancel = () => call.cancel();
    try {
      (route.handler as UnaryHandler)(call, (error, response) => {
        if (error) return exchange.sendStatus(toStatus(error));
        exchange.write(response);
        exchange.sendStatus({ code: Status.OK, details: "" });
      });
    } catch (e) {
      exchange.sendStatus({
        code: Status.UNKNOWN,
        details: `Server method handler threw error ${messageOf(e)}`,
      });
    }
  };
}

/** A bidirectional stream as the handler sees it (see {@link DuplexCall}). */
class H2DuplexCall extends EventEmitter implements DuplexCall {
  readonly metadata: CallMetadata;
  readonly #exchange: Exchange;

  constructor(exchange: Exchange, metadata: CallMetadata) {
    super();
    this.metadata = metadata;
    this.#exchange = exchange;
    // As grpc-js's: an "error" the handler emits ends the call with its status.
    this.on("error", (e: unknown) => exchange.sendStatus(toStatus(e)));
    exchange.onMessage = (message) => this.emit("data", message);
    exchange.onEnd = () => this.emit("end");
    exchange.onCancel = () => this.emit("cancelled");
    exchange.onClose = () => this.emit("close");
    exchange.stream.on("drain", () => this.emit("drain"));
  }

  get destroyed(): boolean {
    return this.#exchange.done;
  }

  get writableNeedDrain(): boolean {
    return !this.#exchange.done && this.#exchange.stream.writableNeedDrain;
  }

  write(message: unknown): boolean {
    return this.#exchange.write(message);
  }

  end(): this {
    this.#exchange.sendStatus({ code: Status.OK, details: "" });
    return this;
  }
}

/** The routes of `services`: a method without a handler is left out (UNIMPLEMENTED). */
function routesOf(services: GrpcListenOptions["services"]): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const { definition, implementation } of services) {
    for (const [name, method] of Object.entries(definition as ServiceDefinition)) {
      const handler = implementation[name];
      if (handler === undefined) continue;
      if (method.requestStream !== method.responseStream) {
        throw new Error(`${method.path}: only unary and bidirectional methods are served`);
      }
      routes.set(method.path, {
        path: method.path,
        streams: method.requestStream,
        handler,
        deserialize: method.requestDeserialize as Route["deserialize"],
        serialize: method.responseSerialize as Route["serialize"],
      });
    }
  }
  return routes;
}

/**
 * Serves `options.services` over `node:http2` (cleartext) and resolves once it listens.
 *
 * A request must be a POST (405 otherwise) of content type `application/grpc…` (415). A method
 * not served is UNIMPLEMENTED; so is a unary call without exactly one message, and a compressed
 * message in a `grpc-encoding` other than `gzip` and `deflate` (every response says
 * `grpc-accept-encoding: identity,deflate,gzip`); a compressed message in a call without
 * `grpc-encoding`, or one that does not inflate, is INTERNAL; a message over `maxMessageBytes`
 * either way, as sent or inflated, RESOURCE_EXHAUSTED. Responses are compressed where
 * `options.responseCompression` names the method (see {@link responseEncodingFor}).
 * `grpc-timeout` sets a deadline (DEADLINE_EXCEEDED; one past 2^31 − 1 ms is none). A client's
 * cancel (RST_STREAM), its connection lost, or the deadline tells the handler "cancelled".
 * @throws {TritonError} UNAVAILABLE when it cannot listen.
 */
export async function listenHttp2(options: GrpcListenOptions): Promise<GrpcListener> {
  const routes = routesOf(options.services);
  const max = options.maxMessageBytes;
  const sessions = new Set<http2.ServerHttp2Session>();
  let closing = false;
  let sessionsGone = noop;

  const accept = (stream: http2.ServerHttp2Stream, headers: Headers) => {
    // A stream's errors (a reset, a write after it) end in its "close", which the call handles.
    stream.on("error", noop);
    if (headers[":method"] !== "POST") {
      respond(stream, { ":status": 405, allow: "POST" }, { endStream: true });
      return void stream.resume();
    }
    const type = headers["content-type"];
    if (typeof type !== "string" || !type.startsWith("application/grpc")) {
      respond(stream, { ":status": 415 }, { endStream: true });
      return void stream.resume();
    }
    const path = headers[":path"] ?? "";
    const route = routes.get(path);
    if (route === undefined) {
      return trailersOnly(stream, {
        code: Status.UNIMPLEMENTED,
        details: `The server does not implement the method ${path}`,
      });
    }
    const requestEncoding = headers["grpc-encoding"];
    const compression = options.responseCompression;
    const encoding: CallEncoding = {
      request: typeof requestEncoding === "string" ? requestEncoding : "identity",
      response: compression?.methods.has(path)
        ? responseEncodingFor(compression.level, headers["grpc-accept-encoding"])
        : undefined,
    };
    const timeoutHeader = headers["grpc-timeout"];
    let timeout: number | undefined;
    if (timeoutHeader !== undefined) {
      timeout = timeoutMs(timeoutHeader);
      if (timeout === undefined) {
        return trailersOnly(stream, {
          code: Status.INTERNAL,
          details: `Invalid grpc-timeout value "${timeoutHeader}"`,
        });
      }
    }
    const exchange = new Exchange(stream, route, max, encoding, timeout);
    const metadata = new HeaderMetadata(headers);
    if (!route.streams) return serveUnary(exchange, route, metadata);
    const call = new H2DuplexCall(exchange, metadata);
    try {
      (route.handler as DuplexHandler)(call);
    } catch (e) {
      exchange.fail({
        code: Status.UNKNOWN,
        details: `Server method handler threw error ${messageOf(e)}`,
      });
    }
  };

  const server = http2.createServer({
    // node:http2 refuses new streams (ENHANCE_YOUR_CALM) once a session holds more than this
    // (in MB; 10 by default); grpc-js lifts it, and so does this: what a connection holds is
    // bounded by maxMessageBytes per call in flight instead, each paced by HTTP/2 flow control.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
  });
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on("error", noop); // followed by "close"
    session.on("close", () => {
      sessions.delete(session);
      if (sessions.size === 0) sessionsGone();
    });
    if (closing) session.close();
  });
  server.on("stream", accept);

  const host = bracketed(options.hostname);
  await new Promise<void>((resolve, reject) => {
    const failed = (e: Error) => reject(cannotListen(host, options.port, e));
    server.once("error", failed);
    // reusePort: Node >= 22.12 and Bun; each spreads new connections over the listeners.
    const reusePort = options.reusePort ?? false;
    server.listen({ port: options.port, host: options.hostname, reusePort }, () => {
      server.off("error", failed);
      resolve();
    });
  });
  server.on("error", noop);

  let stopped: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    stopAccepting: () =>
      stopped ??= new Promise<void>((resolve) => {
        closing = true;
        let listening = true;
        const check = () => {
          if (!listening && sessions.size === 0) resolve();
        };
        sessionsGone = check;
        server.close(() => {
          listening = false;
          check();
        });
        // GOAWAY: each session closes once its calls are done.
        for (const session of sessions) session.close();
      }),
    endInFlight: () => {
      for (const session of sessions) session.destroy(undefined, http2.constants.NGHTTP2_CANCEL);
    },
  };
}
