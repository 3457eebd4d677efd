// Narrowing GET /v1/events per client (docs/architecture.md, "Streams"): by job id, by tag and
// by event type, applied alike to the picture and to the live events. The Manager's stream is
// shared by identical clients whatever their filters (src/operations/shared-calls/streams.ts),
// and each message is decoded once for all of them (src/sse/decoder.ts, with its subject): a
// filter is a test per client of what was already decoded, never a stream of its own.
//
// The rules, said once here and in the query's descriptions (schemas/events.ts):
// - type: the event's name is one of the types asked for;
// - jobId: the event concerns one of these jobs (an event about no job, a node's or a
//   provider's, does not pass);
// - tag: the job or node the event carries has every tag asked for, or the job had them before
//   the update the event tells (a jobUpdated whose history names the job it replaced), so that
//   a client narrowed by tag sees a job leave its view and not only enter it; an event that
//   carries no tags (jobDeleted, jobInfo, nodeStopping, nodeStopped, providerHealthChange)
//   passes, as dropping it could lose a deletion the client must apply;
// - initialDataComplete passes every filter, type included, whether or not it is asked for: it
//   ends the picture, and without it a narrowed client could not tell where the picture ends
//   and the live events begin.
import type { EventStreamEvent, JobWithHistory } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { NodeMetadata } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { invalidArgument } from "../http/problem.js";
import type { ProblemItemJson } from "../../schemas/common.js";
import { EVENT_DATA } from "../../schemas/events.js";
import type { EventStreamQueryJson } from "../../schemas/events.js";

/** What an event is about (src/sse/decoder.ts's EventSubject, restated here: operations do not import sse). */
interface Subject {
  readonly jobId?: string | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  readonly formerTags?: readonly Readonly<Record<string, string>>[] | undefined;
}

/** The event names a type= may list: the SSE `event:` names of the Manager's events. */
const EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(EVENT_DATA));

export interface EventFilter {
  /** Whether a client with this filter is sent `event` (its name) about `subject`. */
  passes(event: string, subject: Subject | undefined): boolean;
}

/** A filter passing everything: a client that asked for no narrowing. */
const EVERYTHING: EventFilter = { passes: () => true };

/** The filter of a query; a type that names no event is a 400 naming the parameter and the value. */
export function eventFilterOf(query: Pick<EventStreamQueryJson, "jobId" | "tag" | "type">): EventFilter {
  const types = query.type === undefined ? undefined : typesOf(query.type);
  const jobIds = query.jobId === undefined ? undefined : new Set(query.jobId);
  const tags = (query.tag ?? []).map((tag) => {
    const colon = tag.indexOf(":");
    return { name: tag.slice(0, colon), value: tag.slice(colon + 1) };
  });
  if (types === undefined && jobIds === undefined && tags.length === 0) return EVERYTHING;
  return {
    passes(event, subject) {
      if (event === "initialDataComplete") return true;
      if (types !== undefined && !types.has(event)) return false;
      if (jobIds !== undefined && (subject?.jobId === undefined || !jobIds.has(subject.jobId))) return false;
      const carried = subject?.tags;
      if (carried === undefined) return true;
      const has = (held: Readonly<Record<string, string>>): boolean => tags.every(({ name, value }) => Object.hasOwn(held, name) && held[name] === value);
      return has(carried) || (subject?.formerTags?.some(has) ?? false);
    },
  };
}

/** The types of the type= values, each a comma list. */
function typesOf(values: readonly string[]): ReadonlySet<string> {
  const types = new Set<string>();
  const errors: ProblemItemJson[] = [];
  for (const value of values) {
    for (const type of value.split(",")) {
      if (EVENT_TYPES.has(type)) types.add(type);
      else errors.push({ parameter: "type", message: `${JSON.stringify(type)} is not an event type; the types are ${[...EVENT_TYPES].join(", ")}` });
    }
  }
  if (errors.length > 0) throw invalidArgument("the query string is invalid", { errors });
  return types;
}

/** The subject of an EventStream event, by its JSON name and its member's value (src/sse/decoder.ts's SubjectOf). */
export function eventSubject(event: string, value: unknown): Subject | undefined {
  const member = value as EventStreamEvent["event"]["value"];
  switch (event) {
    case "jobActive":
    case "jobUpdated":
    case "jobPending":
    case "jobOutOfWindow":
      return jobSubject((member as { jobWithHistory?: JobWithHistory }).jobWithHistory);
    case "jobDeleted":
      return { jobId: (member as { jobId?: { jobId: string } }).jobId?.jobId };
    case "jobInfo":
      return { jobId: (member as { jobKey?: { jobId?: { jobId: string } } }).jobKey?.jobId?.jobId };
    case "nodeRunning":
    case "nodeStarting":
    case "nodeStarted":
      return { tags: (member as { nodeMetadata?: NodeMetadata }).nodeMetadata?.tags ?? {} };
    case "physicalNodeConnected":
      return { tags: (member as { node?: { tags: Record<string, string> } }).node?.tags ?? {} };
    default:
      return undefined;
  }
}

function jobSubject(withHistory: JobWithHistory | undefined): Subject {
  const job = withHistory?.job;
  const subject = { jobId: job?.jobId?.jobId, tags: job?.tags ?? {} };
  const formerTags: Readonly<Record<string, string>>[] = [];
  for (const { historyEntry } of withHistory?.historyEntry ?? []) {
    if (historyEntry.case === "jobUpdated" && historyEntry.value.previousJob !== undefined) formerTags.push(historyEntry.value.previousJob.tags);
  }
  return formerTags.length === 0 ? subject : { ...subject, formerTags };
}
