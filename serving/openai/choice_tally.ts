/**
 * One choice's tally as its responses come: the token counts the model gives, else those of the
 * model's tokenizer, and how the choice ended (`finish_reason`).
 *
 * @module
 */
import type { TokenCounter } from "./tokenizer.ts";

/** How a call counts and ends its choices. */
export interface Counting {
  /** The model's tokenizer, where it has one. */
  readonly tokenizer: TokenCounter | undefined;
  /** Whether a prompt is counted with the tokens the tokenizer adds around it (a completion's
   * prompt: yes; a chat prompt, whose template writes them: no). */
  readonly promptSpecial: boolean;
  /** The model's finish reasons passed on; others read `stop`. */
  readonly reasons: ReadonlySet<string>;
  /** Whether the call reports usage (so the prompt is worth counting). */
  readonly usage: boolean;
  /** The most tokens a choice may generate (`max_tokens`, or what the model gets without it),
   * where known. */
  readonly maxTokens: number | undefined;
}

/** OpenAI's finish reasons of a completion. */
export const COMPLETION_REASONS: ReadonlySet<string> = new Set([
  "stop",
  "length",
  "content_filter",
]);
/** OpenAI's finish reasons of a chat completion. */
export const CHAT_REASONS: ReadonlySet<string> = new Set([
  "stop",
  "length",
  "tool_calls",
  "content_filter",
  "function_call",
]);

/** What one response said, as the tally takes it. */
export interface PieceCounts {
  readonly text: string;
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
  readonly finishReason: string | undefined;
}

/** A choice's end: its finish reason and counts. */
export interface TalliedEnd {
  readonly finishReason: string;
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
}

/**
 * The tally of one choice.
 *
 * `completionTokens`: the model's count (summed over its responses), else the tokenizer's count
 * of the text the choice returns (taken where the call reports usage, or where it alone can tell
 * whether `maxTokens` was reached), else unknown. `finish_reason`: `stop` where a stop string cut
 * the text; the model's own reason where it gives one (`stop` for one OpenAI does not know);
 * else `length` when the tokens generated reached `maxTokens`, counting each response that
 * carried text as at least one token (what a model that streams token by token shows even where
 * nothing counts); else `stop`.
 */
export class ChoiceTally {
  readonly #counting: Counting;
  /** Responses that carried text. */
  #pieces = 0;
  /** The model text the choice returns, kept only to be counted. */
  #text = "";
  #promptTokens: number | undefined;
  #completionTokens: number | undefined;
  #modelReason: string | undefined;

  constructor(counting: Counting) {
    this.#counting = counting;
  }

  /** Takes one response's counts and reason (its text is given by {@link returned}). */
  piece(piece: PieceCounts): void {
    if (piece.text !== "") this.#pieces++;
    this.#promptTokens ??= piece.promptTokens;
    if (piece.completionTokens !== undefined) {
      this.#completionTokens = (this.#completionTokens ?? 0) + piece.completionTokens;
    }
    if (piece.finishReason !== undefined) this.#modelReason = piece.finishReason;
  }

  /** Takes model text the choice returns (after any stop string cut it). */
  returned(text: string): void {
    const { tokenizer, usage, maxTokens } = this.#counting;
    if (tokenizer !== undefined && (usage || maxTokens !== undefined)) this.#text += text;
  }

  /**
   * The choice's end.
   * @param stopped whether a stop string of the front end's cut it.
   * @param promptTokens the tokenizer's count of the prompt, asked only where needed.
   */
  end(stopped: boolean, promptTokens: () => number | undefined): TalliedEnd {
    const { tokenizer, reasons, maxTokens, usage } = this.#counting;
    let completionTokens = this.#completionTokens;
    // The tokenizer runs where its count is reported or can still decide `length`.
    const undecided = !stopped && this.#modelReason === undefined && maxTokens !== undefined &&
      this.#pieces < maxTokens;
    if (completionTokens === undefined && tokenizer !== undefined && (usage || undecided)) {
      completionTokens = tokenizer.count(this.#text, false);
    }
    const generated = Math.max(completionTokens ?? 0, this.#pieces);
    const finishReason = stopped
      ? "stop"
      : this.#modelReason !== undefined
      ? (reasons.has(this.#modelReason) ? this.#modelReason : "stop")
      : maxTokens !== undefined && generated >= maxTokens
      ? "length"
      : "stop";
    return {
      finishReason,
      promptTokens: this.#promptTokens ??
        (this.#counting.usage && tokenizer !== undefined ? promptTokens() : undefined),
      completionTokens,
    };
  }
}
