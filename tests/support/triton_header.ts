/**
 * Reads the declarations of a real `tritonserver.h`: its functions, callback typedefs and enums,
 * for tests/c_api_header.test.ts to compare with ffi/symbols.ts. Only what the header's own style
 * needs: comments and preprocessor lines dropped, one declaration per `;`.
 *
 * @module
 */
import { normalizeType, splitDeclaration } from "../../tools/c_api.mjs";

/** A parameter: its normalized C type and its name. */
export interface HeaderParam {
  readonly type: string;
  readonly name: string;
}

/** A function or a callback typedef. */
export interface HeaderFunction {
  readonly name: string;
  readonly result: string;
  readonly params: readonly HeaderParam[];
}

/** A `typedef enum { ... } Name;` with its constants' values. */
export interface HeaderEnum {
  readonly name: string;
  readonly members: ReadonlyMap<string, number>;
}

/** Everything read from the header. */
export interface Header {
  readonly apiVersion: { readonly major: number; readonly minor: number };
  readonly functions: readonly HeaderFunction[];
  readonly callbacks: readonly HeaderFunction[];
  readonly enums: readonly HeaderEnum[];
}

function params(list: string): HeaderParam[] {
  const t = list.trim();
  if (t === "" || t === "void") return [];
  return t.split(",").map((p) => splitDeclaration(p));
}

/** Parses the text of a `tritonserver.h`. Throws on a declaration it cannot read. */
export function parseHeader(text: string): Header {
  const major = /#define\s+TRITONSERVER_API_VERSION_MAJOR\s+(\d+)/.exec(text);
  const minor = /#define\s+TRITONSERVER_API_VERSION_MINOR\s+(\d+)/.exec(text);
  if (!major || !minor) throw new Error("no TRITONSERVER_API_VERSION_MAJOR/MINOR");
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ")
    .replace(/^\s*#[^\n]*(?:\\\n[^\n]*)*/gm, " ")
    .replace(/extern\s+"C"\s*\{/g, " ");
  const functions: HeaderFunction[] = [];
  const callbacks: HeaderFunction[] = [];
  const enums: HeaderEnum[] = [];
  for (const raw of code.split(";")) {
    const s = raw.replace(/\s+/g, " ").replace(/^[\s}]+/, "").trim();
    if (s === "" || /^struct \w+$/.test(s)) continue;
    let m = /^typedef enum \w* ?\{(.*)\} ?(\w+)$/.exec(s);
    if (m) {
      const members = new Map<string, number>();
      let next = 0;
      for (const item of m[1].split(",").map((x) => x.trim()).filter((x) => x !== "")) {
        const e = /^(\w+)(?: ?= ?(0x[0-9a-fA-F]+|\d+))?$/.exec(item);
        if (!e) throw new Error(`enum ${m[2]}: cannot read "${item}"`);
        const value = e[2] === undefined ? next : Number(e[2]);
        members.set(e[1], value);
        next = value + 1;
      }
      enums.push({ name: m[2], members });
      continue;
    }
    m = /^typedef (.+?) ?\( ?\* ?(\w+) ?\) ?\((.*)\)$/.exec(s);
    if (m) {
      callbacks.push({ name: m[2], result: normalizeType(m[1]), params: params(m[3]) });
      continue;
    }
    m = /^TRITONSERVER_DECLSPEC (.+?) ?\b(TRITONSERVER_\w+) ?\((.*)\)$/.exec(s);
    if (m) {
      functions.push({ name: m[2], result: normalizeType(m[1]), params: params(m[3]) });
      continue;
    }
    throw new Error(`cannot read the declaration "${s.slice(0, 120)}"`);
  }
  return {
    apiVersion: { major: Number(major[1]), minor: Number(minor[1]) },
    functions,
    callbacks,
    enums,
  };
}
