/**
 * What the serving examples (serve.ts, openai.ts) do before they load a model: check each port
 * they will listen on, and where one cannot be listened on (another `npm run serve` holds it, a
 * port below 1024, not a number), print one line naming the variable that sets it and exit 1,
 * rather than a stack trace once every model has loaded.
 *
 * @module
 */
import { createServer } from "node:net";
import process from "node:process";

/** A port an example listens on, and the environment variable that sets it. */
export interface PortSetting {
  /** The variable, e.g. `"PORT"`. */
  readonly variable: string;
  /** Its value (the default where unset). */
  readonly value: string;
}

/** Why `hostname:port` cannot be listened on, or undefined where it can (listens, then closes). */
function listenFailure(hostname: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (e: Error & { code?: string }) => {
      resolve(e.code === "EADDRINUSE" ? "the port is in use" : e.message);
    });
    probe.listen({ host: hostname, port }, () => probe.close(() => resolve(undefined)));
  });
}

/**
 * The port numbers of `settings`, once each is checked on `hostname`; exits with one line on
 * stderr (`script: cannot listen on 127.0.0.1:8000 (PORT): the port is in use; set PORT to a
 * free port`) where one cannot be used. Port 0 (any free port) is not checked.
 */
export async function checkPorts(
  script: string,
  hostname: string,
  settings: readonly PortSetting[],
): Promise<number[]> {
  const ports: number[] = [];
  for (const { variable, value } of settings) {
    const port = Number(value);
    let why: string | undefined;
    if (value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
      why = `${variable} must be a port number (0 to 65535), not ${JSON.stringify(value)}`;
    } else if (port !== 0) {
      const failure = await listenFailure(hostname, port);
      if (failure) {
        why = `cannot listen on ${hostname}:${port} (${variable}): ${failure}; ` +
          `set ${variable} to a free port`;
      }
    }
    if (why) {
      process.stderr.write(`${script}: ${why}\n`);
      process.exit(1);
    }
    ports.push(port);
  }
  return ports;
}
