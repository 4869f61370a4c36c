/**
 * Restricted APIs (Triton's `--http-restricted-api`): a category of endpoints is served only to
 * requests that carry a given header with a given value; others get 403.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import { errorResponse } from "./http_errors.ts";
import { restrictedApi } from "./tritonserver_words.ts";

/**
 * Endpoint categories, Triton's names: `health` (`/v2/health/*`, `.../ready`), `metadata` (`/v2`,
 * `/v2/models/{name}`), `inference` (`infer`, `generate`, `generate_stream`), `model-config`
 * (`.../config`), `model-repository` (`/v2/repository/*`: index, load, unload), `statistics`
 * (`.../stats`), `shared-memory` (`/v2/systemsharedmemory/*`), `trace` (`.../trace/setting`),
 * `logging` (`/v2/logging`); and `metrics` (`/metrics`, which Triton serves on a port of its
 * own).
 */
export type RestrictedCategory =
  | "health"
  | "metadata"
  | "inference"
  | "model-config"
  | "model-repository"
  | "statistics"
  | "metrics"
  | "shared-memory"
  | "trace"
  | "logging";

const CATEGORIES: readonly RestrictedCategory[] = [
  "health",
  "metadata",
  "inference",
  "model-config",
  "model-repository",
  "statistics",
  "metrics",
  "shared-memory",
  "trace",
  "logging",
];

/** The header a restricted category needs, and its value. */
export interface Restriction {
  /** Header name (case-insensitive), e.g. `"admin-key"`. */
  readonly header: string;
  /** The exact value it must carry. */
  readonly value: string;
}

/** Restrictions by category; a category not listed is open. */
export type RestrictedApis = Readonly<Partial<Record<RestrictedCategory, Restriction>>>;

/** Compares in time independent of where the strings differ (the length still shows). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks the restrictions and returns the guard the routes call: `undefined` to go on, or the 403
 * response (`{"error": "This API is restricted, expecting header '<header>'"}`, Triton's words).
 * @throws {TritonError} INVALID_ARG for an unknown category or a restriction without header or
 *   value.
 */
export function restrictionGuard(
  apis: RestrictedApis | undefined,
): (category: RestrictedCategory, request: Request) => Response | undefined {
  const check = restrictionCheck(apis);
  return (category, request) => {
    const denied = check(category, (header) => request.headers.get(header));
    return denied === undefined ? undefined : errorResponse(403, denied);
  };
}

/**
 * Checks the restrictions and returns the check each call makes: given a category and the call's
 * headers, `undefined` to go on, or why not (`This API is restricted, expecting header '…'`).
 * @param categories the categories a front end knows (default: the KServe ones,
 *   {@link RestrictedCategory}).
 * @throws {TritonError} INVALID_ARG as {@link restrictionGuard}.
 */
export function restrictionCheck<C extends string = RestrictedCategory>(
  apis: Readonly<Partial<Record<C, Restriction>>> | undefined,
  categories: readonly C[] = CATEGORIES as readonly string[] as readonly C[],
): (category: C, header: (name: string) => string | null) => string | undefined {
  const rules = new Map<C, Restriction>();
  if (apis !== undefined) {
    if (apis === null || typeof apis !== "object") {
      throw new TritonError("INVALID_ARG", "restrictedApis must be an object of category → rule");
    }
    for (const [category, given] of Object.entries(apis)) {
      const rule = given as Partial<Restriction> | null | undefined;
      if (!categories.includes(category as C)) {
        throw new TritonError(
          "INVALID_ARG",
          `unknown restricted API category '${category}' (one of ${categories.join(", ")})`,
        );
      }
      if (
        rule === null || typeof rule !== "object" || typeof rule.header !== "string" ||
        rule.header === "" || typeof rule.value !== "string"
      ) {
        throw new TritonError(
          "INVALID_ARG",
          `restrictedApis['${category}'] must be { header: string, value: string }`,
        );
      }
      rules.set(category as C, { header: rule.header, value: rule.value as string });
    }
  }
  return (category, header) => {
    const rule = rules.get(category);
    if (rule === undefined) return undefined;
    const given = header(rule.header.toLowerCase());
    if (given !== null && sameText(given, rule.value)) return undefined;
    return restrictedApi(rule.header);
  };
}
