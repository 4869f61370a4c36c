/**
 * A completion or chat call's choices running together: one Triton request per choice (all
 * submitted at once), their text and ends as events in the order they arrive, and the
 * cancellation of every request when the caller goes away, a choice fails or the service closes.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import { ChoiceTally, type Counting } from "./choice_tally.ts";
import type { GenerationPlan } from "./mapping.ts";
import { checkFields, inferRequest, readPiece } from "./choice_inference.ts";
import type { GenerationRequest } from "./request.ts";
import { StopText } from "./stop_text.ts";
import { Utf8Pieces } from "./utf8_pieces.ts";

/** One choice to generate. */
export interface ChoiceSpec {
  /** Its index among the call's choices. */
  readonly index: number;
  /** The prompt the model gets. */
  readonly prompt: string;
  /** Text the choice starts with before the model's (the prompt, for `echo`). */
  readonly prefix: string;
  /** Which of the call's prompts it answers (usage counts each prompt once). */
  readonly promptIndex: number;
}

/** How a choice ended. */
export interface ChoiceEnd {
  readonly index: number;
  /** `stop`, `length`, or another of OpenAI's reasons the model gave (see `ChoiceTally`). */
  readonly finishReason: string;
  /** The prompt's tokens, where the model or its tokenizer counts them. */
  readonly promptTokens: number | undefined;
  /** The tokens generated, where the model or its tokenizer counts them. */
  readonly completionTokens: number | undefined;
}

/** What a generation says, in order: text of a choice, or its end. */
export type ChoiceEvent =
  | { readonly kind: "text"; readonly index: number; readonly text: string }
  | ({ readonly kind: "end" } & ChoiceEnd);

/** Told of what a generation's reader takes: each event, the error, the end (`llm_telemetry.ts`). */
export interface GenerationObserver {
  event(event: ChoiceEvent): void;
  failed(error: unknown): void;
  done(): void;
}

/** The choices of one call, running. */
export class Generation {
  readonly #events: ChoiceEvent[] = [];
  #error: unknown;
  #running: number;
  #wake: (() => void) | undefined;
  readonly #controller = new AbortController();
  readonly #counting: Counting;
  readonly #observer: GenerationObserver | undefined;
  /** The tokenizer's count of each prompt, by prompt index, once asked. */
  readonly #promptCounts = new Map<number, number | undefined>();
  /** Resolves once every choice's request has ended (its stream left). */
  readonly ended: Promise<void>;

  /**
   * Starts every choice. What a choice cannot submit (a value that does not fit an input, an
   * unknown model) is its error, which {@link next} throws.
   * @param signal aborting it cancels every request (the caller went away).
   * @param counting how the choices are counted and ended.
   * @param observer told of what {@link next} and {@link take} give.
   * @throws {OpenAIError} 400 for a field the plan cannot carry (see `checkFields`), before
   *   anything is submitted.
   */
  constructor(
    plan: GenerationPlan,
    request: GenerationRequest,
    choices: readonly ChoiceSpec[],
    signal: AbortSignal | undefined,
    counting: Counting,
    observer?: GenerationObserver,
  ) {
    this.#counting = counting;
    this.#observer = observer;
    const frontEndStop = checkFields(plan, request);
    this.#running = choices.length;
    if (signal?.aborted) this.#controller.abort(signal.reason);
    const onAbort = () => this.cancel(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.ended = Promise.all(
      choices.map((choice) => this.#run(plan, request, choice, frontEndStop)),
    ).then(() => signal?.removeEventListener("abort", onAbort));
  }

  /** Runs one choice until its end, its failure or the call's cancellation. */
  async #run(
    plan: GenerationPlan,
    request: GenerationRequest,
    choice: ChoiceSpec,
    frontEndStop: boolean,
  ): Promise<void> {
    const { index } = choice;
    const decoder = new Utf8Pieces();
    const stops = frontEndStop ? new StopText(request.stop!) : undefined;
    const tally = new ChoiceTally(this.#counting);
    let stopped = false;
    const emit = (text: string) => {
      if (text !== "") this.#push({ kind: "text", index, text });
    };
    /** Model text the choice returns. */
    const generated = (text: string) => {
      tally.returned(text);
      emit(text);
    };
    const pass = (text: string) => {
      if (stops === undefined) return generated(text);
      const cut = stops.push(text);
      generated(cut.text);
      stopped = cut.stopped;
    };
    try {
      emit(choice.prefix);
      const signal = this.#controller.signal;
      for await (
        const response of plan.model.infer(inferRequest(plan, choice.prompt, request, signal))
      ) {
        try {
          const piece = readPiece(plan, response, decoder);
          tally.piece(piece);
          pass(piece.text);
        } finally {
          response.dispose();
        }
        // Leaving the loop cancels the request in Triton.
        if (stopped) break;
      }
      if (!stopped) {
        pass(decoder.end());
        if (!stopped && stops) generated(stops.flush());
      }
      const end = tally.end(stopped, () => this.#promptCount(choice));
      this.#push({ kind: "end", index, ...end });
    } catch (e) {
      if (!this.#controller.signal.aborted) this.#fail(e);
    } finally {
      this.#running--;
      this.#wakeUp();
    }
  }

  /** The tokenizer's count of a choice's prompt, counted once per prompt. */
  #promptCount(choice: ChoiceSpec): number | undefined {
    const { tokenizer, promptSpecial } = this.#counting;
    if (!this.#promptCounts.has(choice.promptIndex)) {
      this.#promptCounts.set(choice.promptIndex, tokenizer?.count(choice.prompt, promptSpecial));
    }
    return this.#promptCounts.get(choice.promptIndex);
  }

  #push(event: ChoiceEvent): void {
    this.#events.push(event);
    this.#wakeUp();
  }

  #fail(error: unknown): void {
    if (this.#error === undefined) this.#error = error ?? new TritonError("UNKNOWN", "failed");
    this.#controller.abort(error);
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * The next event; `undefined` once every choice has ended.
   * @throws the first choice's error (the model's `TritonError`, a 400 for a value that does not
   *   fit an input), after the events before it; every other request is then cancelled.
   */
  async next(): Promise<ChoiceEvent | undefined> {
    while (true) {
      const event = this.#events.shift();
      if (event !== undefined) {
        this.#observer?.event(event);
        return event;
      }
      if (this.#error !== undefined) {
        this.#observer?.failed(this.#error);
        throw this.#error;
      }
      if (this.#running === 0) {
        this.#observer?.done();
        return undefined;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The next event if one is already here, without waiting; `undefined` otherwise (then
   * {@link next} says whether more will come, or throws the error). */
  take(): ChoiceEvent | undefined {
    const event = this.#events.shift();
    if (event !== undefined) this.#observer?.event(event);
    return event;
  }

  /** Cancels every request still running (idempotent); {@link next} then ends. */
  cancel(reason?: unknown): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}
