// The live streams: GET /v1/events (EventStream) and GET /v1/status (CreateStatusChannel). Each
// stream message is a oneof; an event's name is the set member's JSON name and its data that
// member as the mirror writes it. EVENT_DATA and STATUS_DATA list them, name by name; the
// stream schemas are derived from those lists, so each event is described once.
import { Type } from "@sinclair/typebox";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { IdOf, Int32, ProblemJson, Timestamp, Uint64String, doc, named } from "./common.js";
import { EnumOf, Health } from "./enums.js";
import { JobWithHistoryJson } from "./history.js";
import { ActiveJobKeyJson, RunningJobJson } from "./job.js";
import { NodeMetadataJson, PhysicalNodeJson, RunningNodeMetadataJson } from "./nodes.js";

const closed = { additionalProperties: false } as const;
const str = (description: string, example: string) => Type.String({ description, examples: [example] });
/** The message `name` (its protobuf name), as the mirror writes it. */
const message = (name: string, properties: Record<string, TSchema>, description: string, example: object) =>
  named(Type.Object(properties, { ...closed, description, examples: [example] }), name);

const instances = Type.Array(RunningJobJson, { description: "The job instances running on the node.", examples: [[]] });
const nodeMetadata = Type.Optional(doc(NodeMetadataJson, "The node (omitted when unset)."));
const runningNodeMetadata = Type.Optional(doc(RunningNodeMetadataJson, "The node's addresses (omitted when unset)."));
const nodeId = Type.Optional(str("The node's id (omitted when unset).", "aws-node-1"));
const jobWithHistory = Type.Optional(doc(JobWithHistoryJson, "The job and its history (omitted when unset)."));
const aJob = (name: string, description: string) => message(name, { jobWithHistory }, description, { jobWithHistory: { historyEntry: [] } });

const regions = (name: string, item: TSchema, description: string) =>
  message(name, { regionHealth: Type.Array(item, { description: "Health by region.", examples: [[]] }) }, description, { regionHealth: [] });

const ONE_PROVIDER = "At most one of aws, oci is set (a oneof).";
const health = doc(Health, "Health of the region.", "healthy");
const AwsHealth = regions(
  "AwsHealth",
  message("AwsRegionHealth", { region: str("AWS region.", "eu-west-1"), health }, "An AWS region's health.", { region: "eu-west-1", health: "healthy" }),
  "AWS health by region.",
);
const OciHealth = regions(
  "OciHealth",
  message("OciRegionHealth", { availabilityDomain: str("OCI availability domain.", "AD-1"), health }, "An OCI domain's health.", {
    availabilityDomain: "AD-1",
    health: "healthy",
  }),
  "OCI health by availability domain.",
);
export const ProviderHealthJson = message(
  "ProviderHealth",
  { aws: Type.Optional(doc(AwsHealth, "AWS health.")), oci: Type.Optional(doc(OciHealth, "OCI health.")) },
  `A cloud provider's health. ${ONE_PROVIDER}`,
  { aws: { regionHealth: [] } },
);

export const NodeStoppingReason = EnumOf(
  "NodeStoppingReason",
  "norsk.api.manager.NodeStopping.Reason",
  [
    "create_failed",
    "pending_time_exceeded",
    "startup_time_exceeded",
    "initialisation_health_ping_time_exceeded",
    "health_ping_time_exceeded",
    "duplicate_job",
    "provider_stop",
    "provider_terminate",
    "user_requested",
    "unknown_node",
  ] as const,
  "Why a node is stopping.",
);

export const ComposeStage = EnumOf("ComposeStage", "norsk.api.common.JobInfoComposeMessage.Stage", ["build", "create", "start", "stop", "down"] as const, "A stage of docker compose.");

const service = { serviceName: str("The service's name.", "norsk") };
const INFO = "At most one of serviceStarted, serviceRestarting, containerEvent, composeMessage is set (a oneof).";

const JobInfoMessage = message(
  "JobInfoMessage",
  {
    jobKey: Type.Optional(doc(ActiveJobKeyJson, "The instance the message is about (omitted when unset).")),
    timestamp: Type.Optional(doc(Timestamp, "When it happened (omitted when unset).", "2026-12-24T18:00:00Z")),
    serviceStarted: Type.Optional(doc(message("JobInfoServiceStarted", service, "A service started.", { serviceName: "norsk" }), "A service started.")),
    serviceRestarting: Type.Optional(
      doc(message("JobInfoServiceRestarting", service, "A service is restarting.", { serviceName: "norsk" }), "A service is restarting."),
    ),
    containerEvent: Type.Optional(
      doc(
        message("JobInfoContainerEvent", { ...service, text: str("What the container reported.", "health_status: healthy") }, "A container event.", {
          serviceName: "norsk",
          text: "",
        }),
        "A container event.",
      ),
    ),
    composeMessage: Type.Optional(
      doc(
        message(
          "JobInfoComposeMessage",
          { stage: doc(ComposeStage, "The compose stage.", "start"), text: str("The message.", "Container norsk Started") },
          "A docker compose message.",
          { stage: "start", text: "" },
        ),
        "A docker compose message.",
      ),
    ),
  },
  `A message from a job's worker. ${INFO}`,
  { jobKey: { jobId: "encoder-1", role: "primary" } },
);

/** Every EventStream event, by name (the JSON name of its EventStreamEvent member), in field order. */
export const EVENT_DATA = {
  nodeRunning: message("NodeRunning", { nodeMetadata, runningNodeMetadata, instances }, "A cloud node that is running (current picture).", { instances: [] }),
  jobActive: aJob("JobActive", "A job that is active (current picture)."),
  initialDataComplete: message(
    "InitialDataComplete",
    { health: Type.Array(ProviderHealthJson, { description: "Health of the cloud providers.", examples: [[]] }) },
    "The current picture is complete; live events follow.",
    { health: [] },
  ),
  jobUpdated: aJob("JobUpdated", "A job was created or changed (its state and instances included)."),
  jobDeleted: message("JobDeleted", { jobId: Type.Optional(str("The deleted job's id (omitted when unset).", "encoder-1")) }, "A job was deleted.", { jobId: "encoder-1" }),
  jobPending: aJob("JobPending", "A job that starts within pendingWindowS seconds (current picture)."),
  jobOutOfWindow: aJob("JobOutOfWindow", "A job left the pending window."),
  nodeStarting: message("NodeStarting", { nodeMetadata }, "A node is starting.", {}),
  nodeStarted: message("NodeStarted", { nodeMetadata, runningNodeMetadata }, "A node has started.", {}),
  nodeStopping: message("NodeStopping", { nodeId, reason: doc(NodeStoppingReason, "Why the node is stopping.", "user_requested") }, "A node is stopping.", {
    reason: "user_requested",
  }),
  nodeStopped: message("NodeStopped", { nodeId }, "A node has stopped.", { nodeId: "aws-node-1" }),
  physicalNodeConnected: message(
    "PhysicalNodeConnected",
    { node: Type.Optional(doc(PhysicalNodeJson, "The node (omitted when unset).")), instances },
    "A physical node connected, or was registered or updated.",
    { instances: [] },
  ),
  providerHealthChange: doc(ProviderHealthJson, "A cloud provider's health changed."),
  jobInfo: doc(JobInfoMessage, "A message from a job's worker."),
} satisfies Record<string, TObject>;

export const LogLevel = EnumOf(
  "LogLevel",
  "norsk.api.common.Log.Level",
  ["emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"] as const,
  "Severity of a log event.",
);

const VERSION_EXAMPLE = { majorVersion: 1, minorVersion: 0, buildNumber: 384, branchName: "", label: "" };

/** Every CreateStatusChannel event, by name. */
export const STATUS_DATA = {
  hello: message(
    "Hello",
    {
      version: Type.Optional(
        doc(
          message(
            "Version",
            {
              majorVersion: doc(Int32, "Major version.", 1),
              minorVersion: doc(Int32, "Minor version.", 0),
              buildNumber: doc(Int32, "Build number.", 384),
              branchName: str("Branch it was built from (\"\" for a release).", ""),
              label: str("Build label.", "reference"),
            },
            "A version of the Manager.",
            VERSION_EXAMPLE,
          ),
          "The Manager's version (omitted when unset).",
        ),
      ),
    },
    "The first event: who is talking.",
    { version: VERSION_EXAMPLE },
  ),
  logEvent: message(
    "Log",
    {
      level: doc(LogLevel, "Severity.", "info"),
      timestamp: doc(Uint64String, "When, in milliseconds since the Unix epoch (uint64 as a decimal string).", "1766599200000"),
      msg: str("The message.", "job encoder-1 created"),
      metadata: str("Structured context, if any (\"\" when none).", ""),
    },
    "A log event of the Manager.",
    { level: "info", timestamp: "1766599200000", msg: "job encoder-1 created", metadata: "" },
  ),
} satisfies Record<string, TObject>;

/** The mirror's form of a whole stream message: each event a sibling optional property. */
function envelope(name: string, data: Record<string, TObject>, description: string): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [event, schema] of Object.entries(data)) properties[event] = Type.Optional(schema);
  return named(Type.Object(properties, { ...closed, description }), name);
}
export const EventStreamEventJson = envelope("EventStreamEvent", EVENT_DATA, "An EventStream message: exactly one event set.");
export const StatusEventJson = envelope("NorskStatusEvent", STATUS_DATA, "A CreateStatusChannel message: exactly one event set.");

const problemExample = {
  type: "about:blank",
  title: "Service Unavailable",
  status: 503,
  detail: "the Manager is unavailable; try again later",
  instance: "/v1/events",
  code: "UNAVAILABLE",
  requestId: "3f2b8c1e-5d4a-4f7b-9a0e-1c2d3e4f5a6b",
};

const ERROR_EVENT = "error: the last event of a stream that failed: its client fell too far behind (429), the Manager went away (503), or the gateway is shutting down (503).";

/**
 * One NDJSON line, {"event": name, "data": ...}: the component `<Name>Line`, Name the event's
 * name capitalised. A line whose data is an event's message has no description of its own:
 * the message's component describes the event.
 */
function line(event: string, data: TSchema | undefined, description?: string): TObject {
  const properties = { event: Type.Literal(event, { description: "The event's name.", examples: [event] }), ...(data === undefined ? {} : { data }) };
  return named(Type.Object(properties, { ...closed, ...(description === undefined ? {} : { description }) }), `${event.charAt(0).toUpperCase()}${event.slice(1)}Line`);
}

// Both streams end the same ways.
const HEARTBEAT_LINE = line("heartbeat", undefined, "Sent every 15 s (configurable) while nothing else is; ignore it.");
const ERROR_LINE = line("error", doc(ProblemJson, "Why the stream ended.", problemExample), ERROR_EVENT);

/**
 * The lines of a stream: exactly one line schema fits each line, told apart by `event` (an
 * OpenAPI discriminator; its mapping is written with the document's component names by
 * src/openapi/components.ts).
 */
function lines(data: Record<string, TObject>, name: string, stream: string): TSchema {
  const branches = Object.entries(data).map(([event, body]) => line(event, body));
  const union = { oneOf: [...branches, HEARTBEAT_LINE, ERROR_LINE], discriminator: { propertyName: "event" }, description: `One line of ${stream} as NDJSON.` };
  return named(Type.Unsafe<unknown>(union), name);
}

export const EventLine = lines(EVENT_DATA, "EventLine", "GET /v1/events");
export const StatusLine = lines(STATUS_DATA, "StatusLine", "GET /v1/status");

/**
 * text/event-stream, described in words: JSON Schema cannot say more about it. The events are
 * those of the NDJSON lines (their names and data are listed there), and when heartbeats and
 * the error event come is said by the operations' tag.
 */
export function sseText(): TSchema {
  return SERVER_SENT_EVENTS;
}

/**
 * How long an SSE client waits before it reconnects, in ms: the stream's first line, "retry:".
 * Long enough that a crowd of clients cut off together (a gateway restarting) do not all come
 * back at once before it listens, short enough that a client misses little.
 */
export const SSE_RETRY_MS = 2_000;

/** The same for both streams: one component, a string whose content is text/event-stream. */
const SERVER_SENT_EVENTS = named(
  Type.String({
    contentMediaType: "text/event-stream",
    description:
      'Server-Sent Events: first "retry: <ms>" (how long a client waits before reconnecting), then each event as "id: <n>" ' +
      '(1, 2, 3, ... on this connection: a reconnection starts again at 1, with a fresh picture, whatever its Last-Event-ID), ' +
      '"event: <name>" and "data: <JSON on one line>", the event and data of the NDJSON line of the same event; a heartbeat ' +
      'is a ": heartbeat" comment.',
    examples: [`retry: ${String(SSE_RETRY_MS)}\n\nid: 1\nevent: jobDeleted\ndata: {"jobId":"encoder-1"}\n\n`],
  }),
  "ServerSentEvents",
);

/** The most values each narrowing parameter of GET /v1/events takes. */
export const EVENT_FILTER_MAX_VALUES = 100;
/** The longest tag= value, name:value, in characters. */
export const EVENT_TAG_MAX_LENGTH = 1024;
/** The longest type= value, a comma list of event names, in characters. */
export const EVENT_TYPES_MAX_LENGTH = 1024;

export const EventStreamQuery = Type.Object(
  {
    pendingWindowS: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2147483647,
        description:
          "The current picture at the start also lists, as jobPending, jobs due to start within this many seconds (0, the default: none).",
        examples: [3600],
      }),
    ),
    jobId: Type.Optional(
      Type.Array(IdOf("A job id.", "encoder-1"), {
        maxItems: EVENT_FILTER_MAX_VALUES,
        description:
          "Only events about one of these jobs (jobActive, jobPending, jobUpdated, jobDeleted, jobOutOfWindow, jobInfo), and " +
          `initialDataComplete. Repeatable, at most ${String(EVENT_FILTER_MAX_VALUES)}.`,
        examples: [["encoder-1"]],
      }),
    ),
    tag: Type.Optional(
      Type.Array(Type.String({ minLength: 2, maxLength: EVENT_TAG_MAX_LENGTH, pattern: "^[^:]+:" }), {
        maxItems: EVENT_FILTER_MAX_VALUES,
        description:
          "Only events whose job or node has this tag: name:value (the name is everything before the first colon), and the " +
          "jobUpdated of a job that had it before that update, so that a narrowed client sees a job leave its tags. Events that " +
          "carry no tags (jobDeleted, jobInfo, nodeStopping, nodeStopped, providerHealthChange, initialDataComplete) pass: " +
          `a client ignores an id it does not hold. Repeatable (all of them), at most ${String(EVENT_FILTER_MAX_VALUES)}.`,
        examples: [["env:prod"]],
      }),
    ),
    type: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: EVENT_TYPES_MAX_LENGTH }), {
        maxItems: EVENT_FILTER_MAX_VALUES,
        description:
          "Only these events, by their names (the SSE event: names), comma-separated: " +
          `${Object.keys(EVENT_DATA).join(", ")}. A name that is none of them is a 400 naming it. initialDataComplete, which ` +
          "ends the picture, is sent whatever the types (it need not be named). Repeatable.",
        examples: [["jobUpdated,jobDeleted"]],
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: "EventStreamQuery",
    description: "Options of the event stream. jobId, tag and type narrow it, combined with AND, alike for the picture and the live events.",
  },
);
export type EventStreamQueryJson = Static<typeof EventStreamQuery>;

export const StatusChannelQuery = Type.Object({}, { additionalProperties: false, description: "The status channel takes no parameters." });
