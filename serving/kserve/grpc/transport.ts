/**
 * What `serveGrpc()`'s handlers see of a call, and what a transport does for them. The call
 * objects are the part of `@grpc/grpc-js`'s server calls the handlers use, so that grpc-js's own
 * calls (`grpcjs_transport.ts`) and this project's over `node:http2` (`h2_transport.ts`) both fit
 * and the handlers are written once.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { ServiceDefinition } from "@grpc/grpc-js";
import type { Encoding } from "../../common/compression.ts";

/** gRPC status codes (`grpc.status`). */
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** A call's end: a status code ({@link Status}) and its message. */
export interface GrpcStatus {
  readonly code: number;
  readonly details: string;
}

/** A call's request metadata, as `grpc.Metadata` reads it: every value of `key` (lowercase or
 * not), a `-bin` key's as bytes; none is `[]`. */
export interface CallMetadata {
  get(key: string): (string | Buffer)[];
}

/** A unary call: its one request message, decoded. */
export interface UnaryCall {
  readonly request: unknown;
  readonly metadata: CallMetadata;
  /** "cancelled": the client cancelled or went away, or the deadline passed. */
  on(event: "cancelled", listener: () => void): unknown;
}

/** Answers a unary call: a status, or `null` and the response message. */
export type UnaryCallback = (error: GrpcStatus | null, response?: unknown) => void;

/** Serves a unary method. */
export type UnaryHandler = (call: UnaryCall, callback: UnaryCallback) => void;

/** A bidirectional stream: "data" per request message (decoded), "end" once the client is done
 * sending, "cancelled" when it cancels or goes away (or the deadline passes), "drain" once a
 * full write buffer has room again, "close" once the call is over; `emit("error", status)` ends
 * the call with `status`. */
export interface DuplexCall {
  readonly metadata: CallMetadata;
  /** Whether the call is over (nothing more can be written). */
  readonly destroyed: boolean;
  /** Whether the last write filled the buffer (see "drain"). */
  readonly writableNeedDrain: boolean;
  on(event: "data", listener: (message: unknown) => void): unknown;
  on(event: "end" | "error" | "cancelled" | "drain" | "close", listener: () => void): unknown;
  off(event: "error" | "cancelled" | "drain" | "close", listener: () => void): unknown;
  /** Sends a response message; false when the write buffer is full (wait for "drain"). */
  write(message: unknown): boolean;
  /** Ends the call with status OK. */
  end(): unknown;
  emit(event: "error", status: GrpcStatus): boolean;
}

/** Serves a bidirectional-streaming method. */
export type DuplexHandler = (call: DuplexCall) => void;

/** A service's handlers by method name (the keys of its {@link ServiceDefinition}). */
export type ServiceImplementation = Readonly<Record<string, UnaryHandler | DuplexHandler>>;

/** The transports `serveGrpc()` runs on. */
export type GrpcTransportName = "grpc-js" | "http2";

/** How much a server compresses the responses of a method, as grpc++'s
 * `grpc_compression_level` (`tritonserver`'s `--grpc-infer-response-compression-level`). */
export type CompressionLevel = "none" | "low" | "medium" | "high";

/** The message encodings taken, as `grpc-accept-encoding` lists them. */
export const ACCEPT_ENCODING = "identity,deflate,gzip";

/**
 * The encoding of a call's responses at `level`, chosen among the ones the client accepts
 * (`grpc-accept-encoding`, comma-separated) as grpc++ chooses: of gzip and deflate in that order,
 * those accepted; "low" takes the first, "medium" the middle one, "high" the last; `undefined`
 * (uncompressed) at "none" or where the client accepts neither.
 */
export function responseEncodingFor(
  level: CompressionLevel,
  accepted: string | readonly string[] | undefined,
): Encoding | undefined {
  if (level === "none" || accepted === undefined) return undefined;
  const names = new Set(
    (typeof accepted === "string" ? [accepted] : accepted).flatMap((v) =>
      v.split(",").map((name) => name.trim())
    ),
  );
  const usable = (["gzip", "deflate"] as const).filter((name) => names.has(name));
  if (usable.length === 0) return undefined;
  return level === "low"
    ? usable[0]
    : level === "medium"
    ? usable[Math.floor(usable.length / 2)]
    : usable[usable.length - 1];
}

/** What a transport listens with. */
export interface GrpcListenOptions {
  readonly hostname: string;
  /** 0 picks a free one. */
  readonly port: number;
  /** Listen with `SO_REUSEPORT`, beside the other threads of the same service (`"http2"` only).
   * @default false */
  readonly reusePort?: boolean;
  /** The largest message either way, in bytes: compressed as sent, and inflated. */
  readonly maxMessageBytes: number;
  /** The compression of the responses of the methods named (by path), in an encoding the client
   * accepts ({@link responseEncodingFor}). Absent: no response is compressed. */
  readonly responseCompression?: {
    readonly level: CompressionLevel;
    readonly methods: ReadonlySet<string>;
  };
  readonly services: readonly {
    readonly definition: ServiceDefinition;
    readonly implementation: ServiceImplementation;
  }[];
}

/** A transport listening. */
export interface GrpcListener {
  /** The port it listens on. */
  readonly port: number;
  /** Stops accepting connections and asks the open ones to close once their calls are done;
   * resolves once the listener and they are closed. */
  stopAccepting(): Promise<void>;
  /** Ends every connection now, and with them the calls still running. */
  endInFlight(): void;
}

/** `hostname` as an address takes it: an IPv6 one in brackets. */
export function bracketed(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** What a message over `maxMessageBytes` says (grpc-js's words, naming the option). */
export function messageTooLarge(
  direction: "Received" | "Sent",
  bytes: number,
  max: number,
): GrpcStatus {
  return {
    code: Status.RESOURCE_EXHAUSTED,
    details: `${direction} message larger than max (${bytes} vs ${max}) (maxMessageBytes)`,
  };
}
