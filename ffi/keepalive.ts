/**
 * Keeps the process alive while native work is in flight.
 *
 * Triton's callbacks do not keep any runtime's event loop alive (Deno's are unref'd on purpose,
 * Bun's and koffi's never do), so while a request is in flight the binding holds one ref'd timer.
 *
 * @module
 */

let holders = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/** Marks one more piece of native work in flight. */
export function hold(): void {
  if (holders++ === 0) timer = setInterval(() => {}, 1 << 30);
}

/** Marks one piece of native work done. */
export function release(): void {
  if (--holders === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}
