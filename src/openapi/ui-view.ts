// Swagger UI's view of the document (what it reads at /docs/json): the document's operations,
// each with the gateway's own failures that it shares with other operations shown as one
// `default` response that lists them, so that an operation opens on the answers it alone
// gives. The document itself (openapi.yaml, /openapi.json) keeps each of those failures as its
// own typed response, a $ref to components/responses, for generated clients. A response worded
// for one operation alone (not a $ref) stays in the view as it is, whatever its status.
import { statusOf } from "../http/status.js";
import type { Failure } from "../http/status.js";
import { MANAGER_FAILURES } from "../http/responses.js";
import { operationsOf } from "./document.js";
import type { OpenApiDocument, Response } from "./document.js";

/**
 * The gateway's own failures: what an operation may answer whatever it does (credentials and
 * scope, Accept, the body's size and type, the rate limit and write queue), and what any call
 * to the Manager may end in.
 */
const GATEWAY_FAILURES = [
  "UNAUTHENTICATED",
  "PERMISSION_DENIED",
  "NOT_ACCEPTABLE",
  "CONTENT_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "TOO_MANY_REQUESTS",
  ...MANAGER_FAILURES,
] as const satisfies readonly Failure[];

const DEFAULT = "default";

/** The response keys the view groups: the statuses of GATEWAY_FAILURES, and `default`. */
export const GROUPED_RESPONSES: ReadonlySet<string> = new Set([...GATEWAY_FAILURES.map((failure) => String(statusOf(failure))), DEFAULT]);

const SHARED_RESPONSE_PREFIX = "#/components/responses/";

/** The view of `document` (not changed). */
export function uiView(document: object): OpenApiDocument {
  const view = JSON.parse(JSON.stringify(document)) as OpenApiDocument;
  const shared = ((view.components as { responses?: Record<string, Response> } | undefined)?.responses ?? {});
  for (const { operation } of operationsOf(view)) {
    const responses = operation.responses ?? {};
    const grouped = Object.entries(responses).filter(([key, response]) => GROUPED_RESPONSES.has(key) && response.$ref?.startsWith(SHARED_RESPONSE_PREFIX) === true);
    // Nothing to group but `default` itself: it is already one row.
    if (grouped.every(([key]) => key === DEFAULT)) continue;
    const resolved = grouped.map(([key, response]) => [key, resolve(shared, response)] as const);
    for (const [key] of grouped) Reflect.deleteProperty(responses, key);
    responses[DEFAULT] = summary(resolved);
  }
  return view;
}

function resolve(shared: Record<string, Response>, response: Response): Response {
  const target = shared[response.$ref?.slice(SHARED_RESPONSE_PREFIX.length) ?? ""];
  if (target === undefined) throw new Error(`no shared response ${String(response.$ref)}`);
  return target;
}

/**
 * One response for the grouped ones: a line per status with its description, the headers all
 * of them have, and the content of the first (each is a problem; `default` last, as it means
 * any other status).
 */
function summary(grouped: readonly (readonly [string, Response])[]): Response {
  const ordered = [...grouped].sort(([a], [b]) => (a === DEFAULT ? 1 : b === DEFAULT ? -1 : Number(a) - Number(b)));
  const lines = ordered.map(([key, response]) => `- ${key === DEFAULT ? "" : `**${key}** `}${response.description ?? ""}`);
  const description = [
    "**The gateway's own failures**, shared by the operations, each an RFC 9457 problem (`application/problem+json`). " +
      "Shown here as one; the document ([openapi.yaml](/openapi.yaml)) gives each status its own response.",
    lines.join("\n"),
  ].join("\n\n");
  const [first] = ordered;
  const headerNames = Object.keys(first?.[1].headers ?? {}).filter((name) => ordered.every(([, response]) => response.headers?.[name] !== undefined));
  const headers = Object.fromEntries(headerNames.map((name) => [name, first?.[1].headers?.[name]]));
  return { description, headers, ...(first?.[1].content === undefined ? {} : { content: first[1].content }) };
}

