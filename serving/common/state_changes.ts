/**
 * Protocol state that is one for a whole service, however many threads serve it (the front
 * ends' `workers` option): shared memory regions, log and trace settings. A change is made
 * through {@link StateChanges}: the owner (the thread that called `serve()`) applies it first —
 * its answer, or its error, is the change's — then every worker applies the same change to its
 * own copy, and only then does the call that asked for it return. Reads are answered from the
 * answering thread's copy, which therefore never lags a change a client saw succeed.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import type { ErrorCodeName } from "../../ffi/mod.ts";

/** A change of protocol state: its name and its arguments (structured-cloneable). */
export interface StateChange {
  readonly op: string;
  readonly args: readonly unknown[];
}

/** @internal Makes changes of protocol state for the whole service (see the module doc). */
export interface StateChanges {
  /**
   * Applies `op` with `args` in the owner (its result is the value), then in every worker;
   * resolves once all have.
   * @throws {TritonError} what the owner's apply threw (nothing changed then); INTERNAL when a
   *   worker could not apply it (the service then fails and closes).
   */
  change(op: string, args: readonly unknown[]): Promise<unknown>;
}

/** A front end's part in {@link StateChanges}: how it applies a change, in either role. */
export interface StateApplier {
  /** The owner applies a change (mirroring what it changed through the `mirror` hook). */
  apply(op: string, args: readonly unknown[]): unknown | Promise<unknown>;
  /** A worker applies a change the owner made, or answers a question the owner gathers the
   * answers to (its value, structured-cloneable). */
  mirror(op: string, args: readonly unknown[]): unknown;
  /** The changes a starting worker applies first: the owner's state now. */
  snapshot(): StateChange[];
}

/** An error as it crosses threads. */
export interface ErrorMessage {
  readonly code: string;
  readonly message: string;
}

/** `e` as an {@link ErrorMessage} (INTERNAL for what is no TritonError). */
export function errorMessage(e: unknown): ErrorMessage {
  return e instanceof TritonError
    ? { code: e.code, message: e.message }
    : { code: "INTERNAL", message: e instanceof Error ? e.message : String(e) };
}

/** The {@link TritonError} of an {@link ErrorMessage}. */
export function errorOf(m: ErrorMessage): TritonError {
  return new TritonError(m.code as ErrorCodeName, m.message);
}
