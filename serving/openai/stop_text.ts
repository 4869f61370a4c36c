/**
 * Stop strings applied to streamed text by the front end (for models whose mapping does not
 * carry `stop`): text passes as it comes, except a tail that may be the start of a stop string,
 * which is held until the next piece says whether it is; at the first stop string the text ends
 * before it.
 *
 * @module
 */

/** Cuts one choice's text at the first of its stop strings. */
export class StopText {
  readonly #stops: readonly string[];
  /** Text held back: it may begin a stop string. */
  #held = "";

  /** @param stops the stop strings (none empty). */
  constructor(stops: readonly string[]) {
    this.#stops = stops;
  }

  /**
   * Takes the next piece of text.
   * @returns the text that can go out now, and whether a stop string ended the text (then
   *   `text` is what came before it, and nothing more is to be sent).
   */
  push(piece: string): { text: string; stopped: boolean } {
    const text = this.#held + piece;
    let at = -1;
    for (const stop of this.#stops) {
      const i = text.indexOf(stop);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at >= 0) {
      this.#held = "";
      return { text: text.slice(0, at), stopped: true };
    }
    let hold = 0;
    for (const stop of this.#stops) {
      for (let k = Math.min(stop.length - 1, text.length); k > hold; k--) {
        if (text.endsWith(stop.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    this.#held = text.slice(text.length - hold);
    return { text: text.slice(0, text.length - hold), stopped: false };
  }

  /** The text still held, at the end of the stream (it began no stop string after all). */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }
}
