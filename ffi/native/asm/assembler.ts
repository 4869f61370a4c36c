/**
 * The part of an assembler that knows no instruction set: a growing byte buffer, named labels, and
 * fixups — fields whose bytes depend on a label's offset, written by a small {@link Patch} function
 * once every label is known ({@link Assembler.finish}). An encoder (`../x86_64/encoder.ts`, `../a64/encoder.ts`:
 * one per instruction set) appends its instructions' bytes here and says, per fixup, how the label's offset
 * becomes bytes: an x86-64 rel8 or rel32, an absolute 64-bit address, an A64 branch's imm26 inside
 * its 32-bit word, and so on.
 *
 * Addresses the code refers to (libc, Triton, the ring, the JS callbacks) go in an address table
 * after the code ({@link Assembler.address}, {@link Assembler.addressTable}), read PC-relative: no
 * 64-bit immediate is baked into an instruction.
 *
 * Multi-byte values are little-endian (x86-64 and A64 Linux both are).
 *
 * @module
 */

/**
 * Writes a fixup's field once its label is placed: `code` is the whole code, `at` the offset the
 * fixup was recorded at, `target` the label's offset.
 * @throws {Error} when the label is out of the field's reach (the patch says which).
 */
export type Patch = (code: Uint8Array, at: number, target: number) => void;

/** A code buffer with labels and fixups. */
export class Assembler {
  #bytes = new Uint8Array(256);
  #length = 0;
  readonly #labels = new Map<string, number>();
  readonly #fixups: { at: number; label: string; patch: Patch }[] = [];
  /** The address table's entries, in the order first named. */
  readonly #addresses = new Map<string, bigint>();

  /** Current offset (bytes appended so far). */
  get offset(): number {
    return this.#length;
  }

  /** Marks the current offset as `name`.
   * @throws {Error} when `name` is already defined. */
  label(name: string): void {
    if (this.#labels.has(name)) throw new Error(`label ${name} defined twice`);
    this.#labels.set(name, this.#length);
  }

  /** Offset of a defined label.
   * @throws {Error} when `name` is not defined. */
  at(name: string): number {
    const o = this.#labels.get(name);
    if (o === undefined) throw new Error(`label ${name} is not defined`);
    return o;
  }

  /** Appends bytes (each value taken modulo 256). */
  bytes(data: ArrayLike<number>): void {
    this.#reserve(data.length);
    for (let i = 0; i < data.length; i++) this.#bytes[this.#length++] = data[i] & 0xff;
  }

  /** Appends one byte per argument (each taken modulo 256). */
  emit(...data: number[]): void {
    this.bytes(data);
  }

  /** Appends `value` as a little-endian integer of `size` bytes (two's complement when
   * negative). */
  int(value: number | bigint, size: number): void {
    this.#reserve(size);
    writeInt(this.#bytes, this.#length, value, size);
    this.#length += size;
  }

  /** Records a fixup at offset `at` (default: the current offset) for `label`, written by `patch`
   * in {@link finish}. Reserves no bytes: the encoder appends the field's placeholder itself. */
  fixup(label: string, patch: Patch, at: number = this.#length): void {
    this.#fixups.push({ at, label, patch });
  }

  /**
   * The label of the 64-bit entry `name` of the address table (the addresses the code calls,
   * jumps to or reads from, instead of immediates in its instructions), holding `value`; the
   * table is appended by {@link addressTable}.
   * @throws {Error} when `name` was already given another value.
   */
  address(name: string, value: bigint): string {
    const known = this.#addresses.get(name);
    if (known !== undefined && known !== value) {
      throw new Error(`address ${name} given two values`);
    }
    this.#addresses.set(name, value);
    return `address.${name}`;
  }

  /** Appends the address table: `fill` bytes up to a multiple of 8, then each entry named by
   * {@link address}, in the order first named, as a little-endian 64-bit value at its label. */
  addressTable(fill: number): void {
    while (this.#length % 8 !== 0) this.bytes([fill]);
    for (const [name, value] of this.#addresses) {
      this.label(`address.${name}`);
      this.int(value, 8);
    }
  }

  /** Writes every fixup and returns the code.
   * @throws {Error} when a fixup's label is undefined or out of its field's reach. */
  finish(): Uint8Array {
    const code = this.#bytes.slice(0, this.#length);
    for (const { at, label, patch } of this.#fixups) patch(code, at, this.at(label));
    return code;
  }

  #reserve(n: number): void {
    if (this.#length + n <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + n));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }
}

/** Writes `value` at `at` of `code` as a little-endian integer of `size` bytes (two's complement
 * when negative; only its low `size` bytes are kept). */
export function writeInt(code: Uint8Array, at: number, value: number | bigint, size: number): void {
  let v = BigInt.asUintN(size * 8, BigInt(value));
  for (let i = 0; i < size; i++) {
    code[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}
