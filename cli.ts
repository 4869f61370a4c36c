#!/usr/bin/env node
/**
 * The `tritonffi` command (the package's `bin`):
 *
 * ```sh
 * npx tritonffi types ./models > models.d.ts
 * npx tritonffi types --server ./models > models.d.ts   # as a running server completes them
 * ```
 *
 * `types` writes the TypeScript declarations of a model repository's models (see
 * `tritonffi/types`) to standard output, or to `--out FILE`; models it leaves out, and why, go to
 * standard error. Exit status 0 on success, 1 on an error (its message on standard error), 2 on a
 * usage error.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { repositoryDeclarations, serverDeclarations } from "./types.ts";
import type { Declarations } from "./types.ts";

const USAGE = `usage: tritonffi types [--server] [--out FILE] MODEL_REPOSITORY...

Writes a TypeScript declaration of each model of the model repositories (its inputs and
outputs with their data types and shapes, whether it is decoupled, its parameters), for
new Server<Models>(...) of tritonffi.

  (default)     read each model's config.pbtxt; a model without one is left out
  --server      start Triton in process on the repositories and declare each ready model as
                the server runs it (configurations the backend completes included); needs a
                core (TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR)
  --out FILE    write the declarations to FILE instead of standard output
`;

/** Runs the command with `args` (without the program's name); returns the exit status. */
async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command !== "types") {
    process.stderr.write(command ? `tritonffi: unknown command '${command}'\n${USAGE}` : USAGE);
    return 2;
  }
  let server = false;
  let out: string | undefined;
  const repositories: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--server") server = true;
    else if (arg === "--out" && i + 1 < rest.length) out = rest[++i];
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write(USAGE);
      return 0;
    } else if (arg.startsWith("-")) {
      process.stderr.write(`tritonffi types: unknown option '${arg}'\n${USAGE}`);
      return 2;
    } else repositories.push(arg);
  }
  if (repositories.length === 0) {
    process.stderr.write(`tritonffi types: name a model repository\n${USAGE}`);
    return 2;
  }
  try {
    const declarations = server
      ? await fromServer(repositories)
      : await repositoryDeclarations(repositories);
    for (const s of declarations.skipped) {
      process.stderr.write(`tritonffi types: ${s.name}: ${s.reason}\n`);
    }
    if (out !== undefined) await writeFile(out, declarations.text);
    else process.stdout.write(declarations.text);
    return 0;
  } catch (e) {
    process.stderr.write(`tritonffi types: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

/** Starts a server on `repositories` (absolute paths, as Triton needs) and declares its models. */
async function fromServer(repositories: readonly string[]): Promise<Declarations> {
  const { Server } = await import("./mod.ts");
  // No `await using`: Node 22 has no such syntax.
  const server = await new Server({
    modelRepository: repositories.map((r) => resolve(r)),
    log: { info: false, warn: false },
    // A model that fails to load is left out, and said so, rather than failing the command.
    exitOnError: false,
    strictReadiness: false,
  }).start();
  try {
    return serverDeclarations(server, `tritonffi types --server ${repositories.join(" ")}`);
  } finally {
    await server.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
