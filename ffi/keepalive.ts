/**
 * Keeps the process alive while native work is in flight, and tells the completion consumer when
 * completions are expected.
 *
 * Triton's callbacks do not keep any runtime's event loop alive (Deno's are unref'd on purpose,
 * Bun's and koffi's never do), so while a request is in flight the binding holds one ref'd timer
 * — unless the consumer set with {@link watch} keeps the loop alive itself (the native ring's
 * consumer on Deno and Node: its pending wait or queued drain does), which saves a timer per
 * idle-to-busy transition (~2 µs on Deno).
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

let holders = 0;
let timer: ReturnType<typeof setInterval> | undefined;
let watcher: Watcher | undefined;

/** Marks one more piece of native work in flight. */
export function hold(): void {
  if (holders++ === 0) {
    if (!watcher?.keepsAlive) timer = setInterval(() => {}, 1 << 30);
    watcher?.busy();
  }
}

/** Marks one piece of native work done. */
export function release(): void {
  if (--holders === 0) {
    if (timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
    watcher?.idle();
  }
}

/** Sets the one watcher. */
export function watch(listener: Watcher): void {
  watcher = listener;
  if (holders > 0) listener.busy();
}
