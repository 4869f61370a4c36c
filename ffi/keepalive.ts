/**
 * `KeepAlive`: keeps the process alive while native work is in flight, and tells the completion
 * consumer when completions are expected. One per {@link Binding}.
 *
 * Triton's callbacks do not keep any runtime's event loop alive (Deno's are unref'd on purpose,
 * Bun's and koffi's never do), so while a request is in flight the binding holds one ref'd timer
 * — unless the consumer set with {@link KeepAlive.watch} keeps the loop alive itself (the native
 * ring's consumer on Deno and Node: its pending wait or queued drain does), which saves a timer
 * per idle-to-busy transition (bench/README.md, "Costs the code is shaped by").
 *
 * @module
 */

/** The consumer told when work goes in flight and when none is left. */
export interface Watcher {
  busy(): void;
  idle(): void;
  /** Whether the watcher keeps the event loop alive while busy. */
  readonly keepsAlive: boolean;
}

/** Counts native work in flight; ref'd while there is some. */
export class KeepAlive {
  #holders = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #watcher: Watcher | undefined;

  /** Marks one more piece of native work in flight. */
  hold(): void {
    if (this.#holders++ === 0) {
      if (!this.#watcher?.keepsAlive) this.#timer = setInterval(() => {}, 1 << 30);
      this.#watcher?.busy();
    }
  }

  /** Marks one piece of native work done. */
  release(): void {
    if (--this.#holders === 0) {
      if (this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
      this.#watcher?.idle();
    }
  }

  /** Sets the one watcher. */
  watch(listener: Watcher): void {
    this.#watcher = listener;
    if (this.#holders > 0) listener.busy();
  }
}
