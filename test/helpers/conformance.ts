// An independent judge of the gateway's answers: Stoplight Prism's HTTP engine
// (@stoplight/prism-http, the engine of `prism proxy openapi.yaml <upstream> --errors`),
// loaded with openapi.yaml, forwarding each request to a listening gateway and validating
// what comes back: the status against the operation's responses, the Content-Type against
// the response's media types, every documented header against its schema, and the body
// against the media type's schema. Prism reads the answer itself (node-fetch), so what it
// judges is what a client gets off the wire. Nothing of the gateway's own code is used.
import { readFileSync } from "node:fs";
import { createInstance, getHttpOperationsFromSpec } from "@stoplight/prism-http";
import { parse } from "yaml";

/** One finding of Prism's: any severity (error, warning) counts as a violation here. */
export interface Violation {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly severity: number;
}

export interface ConformanceRequest {
  readonly method: "get" | "head" | "post" | "put" | "patch" | "delete";
  /** Path and query, e.g. "/v1/jobs?id=a&id=b". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as is. */
  readonly body?: string;
}

export interface Judged {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** What Prism found wrong with the answer; empty when it conforms. */
  readonly violations: readonly Violation[];
}

type Operations = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>;
type Operation = Operations[number];
type Prism = ReturnType<typeof createInstance>;
type PrismLogger = Parameters<typeof createInstance>[1]["logger"];
type PrismConfig = Parameters<Prism["request"]>[2];

/** Prism logs every exchange through pino; the judge's findings are its return value instead. */
function silentLogger(): PrismLogger {
  const noop = (): void => undefined;
  const logger: Record<string, unknown> = { level: "silent" };
  for (const name of ["fatal", "error", "warn", "info", "debug", "trace", "success", "silent"]) logger[name] = noop;
  logger.child = () => logger;
  return logger as unknown as PrismLogger;
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? "") : values;
  }
  return query;
}

/**
 * What Prism lets pass: it takes application/problem+json and application/json for one
 * another (it compares type and subtype without the +json suffix), and it reads no media type
 * where the response documents no content. Here the Content-Type of an answer must be one of
 * the response's media types exactly, and an answer whose response documents no content (204,
 * 304, a bodiless 202) has no Content-Type and no Content-Length other than 0.
 */
function mediaTypeFindings(operation: Operation, status: number, headers: Readonly<Record<string, string>>): Violation[] {
  const response = operation.responses.find((r) => r.code === String(status)) ?? operation.responses.find((r) => r.code === "default");
  if (response === undefined) return [];
  const documented = (response.contents ?? []).map((content) => content.mediaType);
  const contentType = headers["content-type"];
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  if (documented.length === 0) {
    const length = headers["content-length"];
    return [
      ...(contentType === undefined ? [] : [{ message: `a ${String(status)} documents no content, but its Content-Type is "${contentType}"`, severity: 0 }]),
      ...(length === undefined || length === "0" ? [] : [{ message: `a ${String(status)} documents no content, but its Content-Length is ${length}`, severity: 0 }]),
    ];
  }
  if (mediaType !== undefined && documented.includes(mediaType)) return [];
  return [{ message: `the media type "${String(contentType)}" is none of ${documented.join(", ")}`, severity: 0 }];
}

export class ConformanceJudge {
  readonly #operations: Operations;
  readonly #prism: Prism;
  /** Statuses answered, by operationId, for the coverage check. */
  readonly seen = new Map<string, Set<number>>();

  private constructor(operations: Operations) {
    this.#operations = operations;
    this.#prism = createInstance(this.#config("http://127.0.0.1:1"), { logger: silentLogger() });
  }

  /** Loads the OpenAPI document (YAML) that the judge holds answers to. */
  static async load(documentPath: string): Promise<ConformanceJudge> {
    const document = parse(readFileSync(documentPath, "utf8")) as object;
    return new ConformanceJudge(await getHttpOperationsFromSpec(document));
  }

  /** Every status an operation documents, by operationId; `default` is not a status. */
  documented(): Map<string, Set<number>> {
    const statuses = new Map<string, Set<number>>();
    for (const operation of this.#operations) {
      const codes = operation.responses.map((response) => response.code).filter((code) => /^[1-5][0-9][0-9]$/.test(code));
      statuses.set(operation.iid ?? `${operation.method} ${operation.path}`, new Set(codes.map(Number)));
    }
    return statuses;
  }

  /**
   * Sends `request` to `upstream` through Prism and returns the answer with Prism's findings
   * and the media-type findings of mediaTypeFindings. Rejects when Prism cannot take the
   * answer at all (a JSON Content-Type on an empty body, say), as `prism proxy` fails such an
   * exchange; and when the request matches no operation of the document, which Prism would
   * forward unjudged.
   */
  async judge(upstream: string, request: ConformanceRequest): Promise<Judged> {
    return (await this.#judge(upstream, request)).judged;
  }

  /** judge, for a request of operation `operationId`; records the status for the coverage check. */
  async judgeOperation(operationId: string, upstream: string, request: ConformanceRequest): Promise<Judged> {
    const { operation, judged } = await this.#judge(upstream, request);
    if (operation.iid !== operationId) throw new Error(`${request.method} ${request.path} is ${String(operation.iid)}, not ${operationId}`);
    const statuses = this.seen.get(operationId) ?? new Set<number>();
    this.seen.set(operationId, statuses.add(judged.status));
    return judged;
  }

  async #judge(upstream: string, request: ConformanceRequest): Promise<{ operation: Operation; judged: Judged }> {
    const url = new URL(request.path, upstream);
    const operation = this.#operationOf(request.method, url.pathname);
    const input = {
      method: request.method,
      // No baseUrl: Prism would match it against the servers of the document, which name none.
      url: { path: url.pathname, query: queryOf(url) },
      headers: { ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    };
    const result = await this.#prism.request(input, this.#operations, this.#config(upstream))();
    if (result._tag === "Left") throw result.left;
    const { output, validations } = result.right;
    if (validations.input.length > 0) {
      throw new Error(`Prism did not judge ${request.method} ${request.path}: ${validations.input.map((v) => v.message).join("; ")}`);
    }
    const headers = output.headers ?? {};
    const violations = [...validations.output, ...mediaTypeFindings(operation, output.statusCode, headers)];
    return { operation, judged: { status: output.statusCode, headers, body: output.body, violations } };
  }

  /** The operation of `method` on `path`: a literal path before a template (/v1/nodes/aws before /v1/nodes/{nodeId}). */
  #operationOf(method: string, path: string): Operation {
    const matching = this.#operations
      .filter((operation) => operation.method === method && new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
      .sort((a, b) => a.path.split("{").length - b.path.split("{").length);
    const [operation] = matching;
    if (operation === undefined) throw new Error(`Prism did not judge ${method} ${path}: no operation of the document`);
    return operation;
  }

  #config(upstream: string): NonNullable<PrismConfig> {
    return {
      isProxy: true,
      upstream: new URL(upstream),
      upstreamProxy: undefined,
      mock: { dynamic: false },
      errors: false,
      checkSecurity: false,
      // The gateway is judged, not the test's requests (many are bad on purpose).
      validateRequest: false,
      validateResponse: true,
    };
  }
}
