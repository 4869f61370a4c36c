/**
 * A choice's text as its responses bring it: BYTES elements decoded as one UTF-8 stream, exactly
 * as one streaming `TextDecoder` decodes them (a character split between two responses is
 * completed by the next; a byte order mark is dropped only at the very start; malformed bytes
 * read as U+FFFD), but an element that the stream meets on a character boundary and that ends
 * on one — nearly all of them — is decoded in one shot, which is cheaper on Node and Deno than a
 * streaming decode (ICU's, on Node).
 *
 * @module
 */

/** One-shot decoding, a byte order mark kept (a streaming decoder past its start keeps it). */
const whole = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Whether `bytes` ends with a complete UTF-8 character: its last lead byte is followed by exactly
 * the continuation bytes it announces. `false` also where that cannot be told from the last four
 * bytes (the streaming decoder then decides).
 */
export function endsOnBoundary(bytes: Uint8Array): boolean {
  const n = bytes.length;
  for (let k = 1; k <= 4 && k <= n; k++) {
    const c = bytes[n - k];
    if ((c & 0xc0) === 0x80) continue;
    const length = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
    return length === k;
  }
  return false;
}

/** The decoder of one choice's text. */
export class Utf8Pieces {
  /** Keeps every byte order mark: the one at the very start is dropped by {@link #first}, as the
   * Encoding standard's decoder drops it (Deno's streaming decoder also drops one that begins a
   * later call, which would lose a U+FEFF of the text). */
  readonly #stream = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The stream decoder has taken bytes (so past where a byte order mark is dropped) and holds
   * none back. */
  #clean = false;
  /** Text has come out (so a U+FEFF is the text's, not a byte order mark). */
  #started = false;

  /** The text of the next element. */
  decode(bytes: Uint8Array): string {
    if (bytes.length === 0) return "";
    if (this.#clean && endsOnBoundary(bytes)) return whole.decode(bytes);
    const text = this.#stream.decode(bytes, { stream: true });
    this.#clean = endsOnBoundary(bytes);
    return this.#first(text);
  }

  /** What the stream still holds back at its end (U+FFFD for an unfinished character). */
  end(): string {
    return this.#first(this.#stream.decode());
  }

  /** `text`, less the byte order mark where it is the stream's first character (which only the
   * bytes EF BB BF at the very start can give). */
  #first(text: string): string {
    if (this.#started || text === "") return text;
    this.#started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
