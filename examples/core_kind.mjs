// Which core a libtritonserver.so is, for `npm run demo` (examples/run_demo.mjs) to say: the
// project's fake core (tests/fake_core), which alone defines `FAKECORE_LiveCount`; a real core,
// which defines `TRITONSERVER_ServerNew` and not that; or neither (no such file, not a 64-bit ELF
// shared library). Read from the library's dynamic symbol table, without loading it (a real core
// loaded here, in the launcher, would start its own threads and allocators for nothing).
// Plain Node ESM (only node: built-ins).
import { closeSync, openSync, readSync } from "node:fs";

const SHT_DYNSYM = 11;

/** `length` bytes of the file `fd` from `offset`. */
function read(fd, offset, length) {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, offset);
  if (got !== length) throw new Error("short read");
  return buffer;
}

/** The names of the symbols the ELF file at `path` defines in its dynamic symbol table. */
export function definedDynamicSymbols(path) {
  const fd = openSync(path, "r");
  try {
    const header = read(fd, 0, 64);
    // "\x7fELF", 64-bit (class 2), little-endian (data 1): x86-64 and aarch64 Linux.
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) {
      throw new Error("not a 64-bit little-endian ELF file");
    }
    const sectionsAt = Number(header.readBigUInt64LE(0x28));
    const sectionSize = header.readUInt16LE(0x3a);
    const sectionCount = header.readUInt16LE(0x3c);
    const sections = read(fd, sectionsAt, sectionSize * sectionCount);
    const section = (i) => {
      const at = i * sectionSize;
      return {
        type: sections.readUInt32LE(at + 4),
        offset: Number(sections.readBigUInt64LE(at + 0x18)),
        size: Number(sections.readBigUInt64LE(at + 0x20)),
        link: sections.readUInt32LE(at + 0x28),
        entrySize: Number(sections.readBigUInt64LE(at + 0x38)),
      };
    };
    const names = new Set();
    for (let i = 0; i < sectionCount; i++) {
      const symbols = section(i);
      if (symbols.type !== SHT_DYNSYM || symbols.entrySize < 24) continue;
      const strings = section(symbols.link);
      const table = read(fd, symbols.offset, symbols.size);
      const text = read(fd, strings.offset, strings.size);
      for (let at = 0; at + 24 <= table.length; at += symbols.entrySize) {
        const defined = table.readUInt16LE(at + 6) !== 0; // st_shndx: 0 is an undefined symbol
        if (!defined) continue;
        const start = table.readUInt32LE(at);
        const end = text.indexOf(0, start);
        names.add(text.toString("latin1", start, end < 0 ? text.length : end));
      }
    }
    return names;
  } finally {
    closeSync(fd);
  }
}

/** `"fake"`, `"real"`, or undefined where `path` is neither (see the module comment). */
export function coreKind(path) {
  let names;
  try {
    names = definedDynamicSymbols(path);
  } catch {
    return undefined;
  }
  if (names.has("FAKECORE_LiveCount")) return "fake";
  return names.has("TRITONSERVER_ServerNew") ? "real" : undefined;
}
