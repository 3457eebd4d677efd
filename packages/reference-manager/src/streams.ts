// The Manager's long-lived streams: EventStream and CreateStatusChannel. Both follow the
// event bus (src/events.ts) until the client cancels, the subscriber falls too far
// behind (RESOURCE_EXHAUSTED), or the Manager shuts down (UNAVAILABLE).
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { EventStreamEventSchema, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, EventStreamRequest, Manager, NorskStatusEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Log_Level } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { HandlerContext, ServiceImpl } from "norsk-manager-contract/grpc/index.js";
import type { ManagerContext } from "./context.js";
import { invalidArgument } from "./errors.js";
import type { Change } from "./events.js";
import { currentPicture } from "./picture.js";
import { packageVersion } from "./version.js";

/** Open calls, for stats(): each counter returns to 0 once its clients have gone. */
export interface StreamCounters {
  openEventStreams: number;
  openStatusChannels: number;
}

type StreamHandlers = Pick<ServiceImpl<typeof Manager>, "eventStream" | "createStatusChannel">;

/** The label CreateStatusChannel's hello carries, telling clients this is not a real Manager. */
export const VERSION_LABEL = "reference";

export function streamHandlers(context: ManagerContext, counters: StreamCounters): StreamHandlers {
  return {
    eventStream: (request, call) => eventStream(context, counters, request, call),
    createStatusChannel: (request, call) => createStatusChannel(context, counters, request, call),
  };
}

// The current picture (src/picture.ts), initial_data_complete, then every change
// committed after the picture was read, in commit order. Committing what is pending,
// subscribing and reading the picture happen in one synchronous turn, so no change is missed
// or sent twice.
async function* eventStream(
  context: ManagerContext,
  counters: StreamCounters,
  request: EventStreamRequest,
  { signal }: HandlerContext,
): AsyncGenerator<EventStreamEvent> {
  if (request.pendingWindowS < 0) throw invalidArgument("pending_window_s must not be negative");
  counters.openEventStreams++;
  try {
    context.commits.flush();
    const subscription = context.bus.subscribe(signal);
    const picture: EventStreamEvent[] = currentPicture(context.store, request.pendingWindowS, context.now());
    yield* picture;
    yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: { health: [] } } });
    for await (const change of subscription) yield* change.events;
  } finally {
    counters.openEventStreams--;
  }
}

// hello (this package's version, label "reference"), then one INFO log per committed change.
// Log.timestamp is the commit time in milliseconds since the Unix epoch.
async function* createStatusChannel(
  context: ManagerContext,
  counters: StreamCounters,
  _request: Empty,
  { signal }: HandlerContext,
): AsyncGenerator<NorskStatusEvent> {
  counters.openStatusChannels++;
  try {
    context.commits.flush();
    const subscription = context.bus.subscribe(signal);
    yield helloEvent();
    for await (const change of subscription) yield logEvent(change);
  } finally {
    counters.openStatusChannels--;
  }
}

function helloEvent(): NorskStatusEvent {
  const version = packageVersion();
  return create(NorskStatusEventSchema, {
    message: {
      case: "hello",
      value: {
        version: { majorVersion: version.major, minorVersion: version.minor, buildNumber: version.patch, label: VERSION_LABEL },
      },
    },
  });
}

function logEvent(change: Change): NorskStatusEvent {
  return create(NorskStatusEventSchema, {
    message: {
      case: "logEvent",
      value: { level: Log_Level.INFO, timestamp: BigInt(change.committedAtMs), msg: change.summary },
    },
  });
}
