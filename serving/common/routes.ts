/**
 * How an HTTP front end registers its routes on a Hono app: each behind its restricted-API
 * category's check, and another method on the same path answered 405.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { servedBy } from "./http_span.ts";

/** An HTTP method the routes answer. */
export type Method = "GET" | "POST";

/** Registers `handler` for `method` (one or several) on each path, behind the restriction of
 * `category`; another method there is 405. */
export type Route<C extends string> = (
  method: Method | readonly Method[],
  paths: readonly string[],
  category: C,
  handler: (c: Context) => Response | Promise<Response>,
) => void;

/**
 * The {@link Route} of `app`.
 * @param guard the answer refusing a call to a restricted category (403), `undefined` to go on.
 * @param notAllowed the answer to another method on a route's path (405).
 */
export function routesOf<C extends string>(
  app: Hono,
  guard: (category: C, request: Request) => Response | undefined,
  notAllowed: (c: Context) => Response,
): Route<C> {
  return (method, paths, category, handler) => {
    const methods: string[] = typeof method === "string" ? [method] : [...method];
    for (const path of paths) {
      app.on(methods, path, (c) => {
        servedBy(path);
        return guard(category, c.req.raw) ?? handler(c);
      });
      app.all(path, (c) => {
        servedBy(path);
        return notAllowed(c);
      });
    }
  };
}
