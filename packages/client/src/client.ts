// createClient: one object for the whole API, its resources named as the SDK names its calls.
// Every operation of openapi.yaml has a method (METHOD_OF_OPERATION; a test walks the
// document's operationIds against it).
import { Authenticator } from "./core/auth.js";
import type { Backoff } from "./core/backoff.js";
import type { StreamOptions } from "./core/event-stream.js";
import { DEFAULTS } from "./core/options.js";
import type { ClientOptions, RequestOptions } from "./core/options.js";
import { Transport } from "./core/transport.js";
import type { OperationId } from "./gen/operations.js";
import { events, status } from "./resources/events.js";
import type { EventName, EventsQuery, ManagerEvent, StatusEvent } from "./resources/events.js";
import { Jobs } from "./resources/jobs.js";
import { Nodes } from "./resources/nodes.js";
import { Probes } from "./resources/probes.js";
import type { CloudHealth } from "./types.js";

export interface Client {
  readonly jobs: Jobs;
  readonly nodes: Nodes;
  /** The gateway's own probes: liveness and readiness. */
  readonly probes: Probes;
  /** The cloud providers' health by region. */
  health(options?: RequestOptions): Promise<CloudHealth>;
  /** The Manager's events: the current picture, initialDataComplete, then live events; reconnects by itself. */
  events<T extends EventName = EventName>(query?: EventsQuery<T>, options?: StreamOptions): AsyncGenerator<Extract<ManagerEvent, { event: T | "initialDataComplete" }>, void, undefined>;
  /** The Manager's status channel: hello, then a logEvent for each thing it reports. */
  status(options?: StreamOptions): AsyncGenerator<StatusEvent, void, undefined>;
}

/** The client method of each operation, as a path from the client. */
export const METHOD_OF_OPERATION: Readonly<Record<OperationId, string>> = {
  getLiveness: "probes.liveness",
  getReadiness: "probes.readiness",
  jobSearch: "jobs.list",
  createJob: "jobs.create",
  jobById: "jobs.get",
  updateJob: "jobs.replace",
  patchJob: "jobs.patch",
  deleteJob: "jobs.delete",
  completeJob: "jobs.complete",
  listJobInstances: "jobs.instances.list",
  startJob: "jobs.instances.start",
  stopJob: "jobs.instances.stop",
  createAwsNode: "nodes.createAws",
  createOciNode: "nodes.createOci",
  terminateNode: "nodes.terminate",
  nodeById: "nodes.get",
  updatePhysicalNode: "nodes.updatePhysical",
  nodes: "nodes.list",
  jobActivity: "jobs.activity",
  cloudHealth: "health",
  eventStream: "events",
  createStatusChannel: "status",
};

export function createClient(options: ClientOptions): Client {
  const backoff: Backoff = { initialDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs, maxDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs };
  const transport = new Transport({
    baseUrl: options.baseUrl,
    // Called as a function, not a method: a browser's fetch refuses any other `this`.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
    backoff,
    headers: options.headers ?? {},
    auth: new Authenticator(options),
  });
  const followEvents: Client["events"] = (query = {}, streamOptions = {}) => events(transport, backoff, query, streamOptions);
  return {
    jobs: new Jobs(transport, backoff, followEvents),
    nodes: new Nodes(transport),
    probes: new Probes(transport),
    health: async (requestOptions = {}) => (await transport.json({ operation: "cloudHealth" }, requestOptions)).value as CloudHealth,
    events: followEvents,
    status: (streamOptions = {}) => status(transport, backoff, streamOptions),
  };
}
