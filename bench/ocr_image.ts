/**
 * The image every OCR benchmark engine reads: three lines of text rendered at 640×320.
 *
 * @module
 */

/** The rendered lines every engine must read back. */
export const OCR_LINES: readonly string[] = [
  "HELLO WORLD",
  "Triton in process",
  "tritonffi 2026",
];
/** The image's size (tests/support/text_image.ts options). */
export const OCR_IMAGE = { width: 640, height: 320 } as const;
