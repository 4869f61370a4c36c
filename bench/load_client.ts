/**
 * Runs a load generator (bench/http_client.mjs, bench/sse_client.mjs) in a Node process of its
 * own, so that its work does not share the served runtime's event loop: the spec goes as its one
 * argument (JSON), its result comes back as the JSON it prints.
 *
 * @module
 */
import { spawn } from "node:child_process";

/**
 * The result `script` prints for `spec`.
 * @param node the Node binary (`$BENCH_NODE`, the one `npm run` started)
 * @throws {Error} when the generator exits with an error status.
 */
export function runLoadClient<T>(node: string, script: string, spec: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(node, [script, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`load generator exited ${code}`));
      else resolve(JSON.parse(out));
    });
  });
}
