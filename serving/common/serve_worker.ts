/**
 * A worker's side of a front end served by several threads (worker_pool.ts has the owner's):
 * told `start`, it attaches to the owner's server (`Server.attach()`), makes the front end's
 * service with its options, applies the owner's protocol state, listens on the service's port
 * with `reusePort`, and says `listening`. Then it applies the changes the owner mirrors, sends
 * the changes its clients ask for to the owner, and on `close` closes its listener and calls,
 * stops its attached server and says `closed`.
 *
 * Messages are taken in the order they come; those that come before the service listens wait
 * for it.
 *
 * @module
 */
import { Server } from "../../src/server.ts";
import { TritonError } from "../../src/errors.ts";
import { countedBy, type Listening, listenOn, type ServedService } from "./listen.ts";
import type { ServiceHooks } from "./listen.ts";
import { closing } from "./lifecycle.ts";
import {
  type ErrorMessage,
  errorMessage,
  errorOf,
  type StateApplier,
  type StateChanges,
} from "./state_changes.ts";
import type { StartMessage } from "./worker_pool.ts";
import { type ParentPort, parentPort } from "./worker_threads.ts";

/** Makes a front end's service in a worker (as its `serve` function does in the owner). */
export type WorkerService = (
  server: Server,
  options: unknown,
  hooks: ServiceHooks,
) => ServedService;

/** A worker's service once it listens: its protocol state, and how it closes. */
export interface WorkerServing {
  /** How it applies the changes the owner mirrors, where it has protocol state. */
  readonly state?: StateApplier;
  /** Closes its listener and calls (`timeoutMs` as the service's `close()` takes it). */
  close(timeoutMs: number | undefined): Promise<void>;
}

/** Starts a front end's service in a worker, attached to `server`, as `start` says (listening
 * on its port with `reusePort`, counting its calls in `start.counters[start.index]`, having
 * applied `start.snapshot`), its changes of protocol state made through `changes`. Resolves
 * once it listens. */
export type StartWorkerService = (
  server: Server,
  start: StartMessage,
  changes: StateChanges,
) => Promise<WorkerServing>;

/** A worker's service, once it listens. */
interface Running {
  readonly serving: WorkerServing;
  readonly server: Server;
}

/** Serves the HTTP front end `make` makes in this worker, as the owner's pool asks (see the
 * module documentation). Call it once, at the top of the front end's worker module. */
export function runServeWorker(make: WorkerService): Promise<void> {
  return runWorker((server, start, changes) => startHttp(server, start, changes, make));
}

/** Serves the front end `startService` starts in this worker, as the owner's pool asks (see the
 * module documentation). Call it once, at the top of the front end's worker module. */
export async function runWorker(startService: StartWorkerService): Promise<void> {
  const port = await parentPort();
  const answers = new Map<number, { resolve(v: unknown): void; reject(e: TritonError): void }>();
  let nextId = 1;
  const changes: StateChanges = {
    change: (op, args) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        answers.set(id, { resolve, reject });
        port.post({ kind: "change", id, op, args });
      }),
  };
  let running: Promise<Running> | undefined;
  port.listen((data) => {
    const m = data as Record<string, unknown>;
    switch (m.kind) {
      case "start":
        running = start(m as unknown as StartMessage, port, startService, changes);
        running.catch((e) => port.post({ kind: "failed", error: errorMessage(e) }));
        return;
      case "mirror":
        void running!.then(({ serving }) => {
          try {
            const value = serving.state!.mirror(m.op as string, m.args as unknown[]);
            port.post({ kind: "mirrored", id: m.id, value });
          } catch (e) {
            port.post({ kind: "mirrored", id: m.id, error: errorMessage(e) });
          }
        }, () => {});
        return;
      case "changed": {
        const answer = answers.get(m.id as number);
        answers.delete(m.id as number);
        if (m.error === undefined) answer?.resolve(m.value);
        else answer?.reject(errorOf(m.error as ErrorMessage));
        return;
      }
      case "close":
        void (running ?? Promise.reject()).then(async ({ serving, server }) => {
          await serving.close(m.timeoutMs as number | undefined);
          await server.stop();
        }).catch(() => {}).finally(() => port.post({ kind: "closed" }));
        return;
      case "crash":
        // Tests: a worker that dies of an uncaught error under load.
        setTimeout(() => {
          throw new Error("worker crashed on purpose (test)");
        });
        return;
    }
  });
}

async function start(
  m: StartMessage,
  port: ParentPort,
  startService: StartWorkerService,
  changes: StateChanges,
): Promise<Running> {
  // The owner checked the opt-in on Bun before it started any worker.
  const server = await Server.attach(m.handle, { allowBunWorkers: true });
  let serving: WorkerServing;
  try {
    serving = await startService(server, m, changes);
  } catch (e) {
    await server.stop();
    throw e;
  }
  port.post({ kind: "listening" });
  return { serving, server };
}

/** An HTTP front end's service in a worker (`make` makes it), on this runtime's HTTP server. */
async function startHttp(
  server: Server,
  m: StartMessage,
  changes: StateChanges,
  make: WorkerService,
): Promise<WorkerServing> {
  const counters = new Int32Array(m.counters);
  const listening: Listening = await listenOn({
    hostname: m.hostname,
    port: m.port,
    reusePort: true,
    service: (hooks) => {
      const threads = counters.length;
      const service = make(server, m.options, { ...hooks, threads, changes });
      for (const change of m.snapshot) service.state?.mirror(change.op, change.args);
      return { ...service, fetch: countedBy(counters, m.index, service.fetch) };
    },
  });
  const service = listening.service;
  const { close } = closing({
    stopAccepting: () => listening.stopAccepting(),
    idle: () => service.idle(),
    endInFlight: () =>
      service.endStreams(new TritonError("UNAVAILABLE", "the HTTP service is closing")),
    finish: () => listening.closeAll().then(() => service.finish?.()),
  }, undefined);
  return {
    state: service.state,
    close: (timeoutMs) => close(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
