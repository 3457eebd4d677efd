// Reads from the Manager's current picture (docs/architecture.md, "Reads from the picture"):
// an EventStream is opened, its messages read up to InitialDataComplete, and the call then
// cancelled. The picture is read afresh for each read (identical reads in flight share one,
// through SharedCalls, never a kept copy): a read never sees a state older than a write
// acknowledged before it arrived.
//
// Bounded: the call has the request's deadline (a Manager that never completes its picture
// is a DEADLINE_EXCEEDED, a 504, at the deadline), and the picture's encoded size is at most
// PictureReadOptions.limitBytes (more is the gateway's 502: an answer it cannot use).
import { fromBinary } from "@bufbuild/protobuf";
import { EventStreamEventSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type {
  EventStreamEvent,
  EventStreamRequestSchema,
  JobWithHistory,
  NodeRunning,
  PhysicalNodeConnected,
  ProviderHealth,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { BytesClient } from "norsk-manager-contract/grpc/client.js";
import { UnusableAnswerError } from "norsk-manager-contract/grpc/errors.js";
import type { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SharedCalls } from "./shared-calls/calls.js";
import { sharedCallKey } from "./shared-calls/key.js";

/** PictureReadOptions.limitBytes's default: 32 MiB of encoded messages. */
export const PICTURE_LIMIT_BYTES = 32 * 1024 * 1024;

/** The Manager's current picture, member by member, each in the order the Manager sent it. */
export interface Picture {
  readonly nodesRunning: readonly NodeRunning[];
  readonly physicalNodes: readonly PhysicalNodeConnected[];
  readonly jobsActive: readonly JobWithHistory[];
  readonly jobsPending: readonly JobWithHistory[];
  /** The providers' health, from InitialDataComplete. */
  readonly health: readonly ProviderHealth[];
}

export interface PictureReadOptions {
  /** The most bytes of encoded messages a picture may have; one more fails the read (a 502). Default: PICTURE_LIMIT_BYTES. */
  readonly limitBytes?: number | undefined;
  /** Pictures shared by identical reads in flight. Default: none, each read its own call. */
  readonly reads?: SharedCalls<Picture> | undefined;
}

type PictureRequest = MessageInitShape<typeof EventStreamRequestSchema>;

/**
 * The Manager's current picture for `request` (its pendingWindowS), read with `options` (its
 * deadline, metadata and signal), shared with identical reads in flight when `reads` is given.
 * The answer may be shared: the caller must not change it.
 */
export function readPicture(
  client: BytesClient<typeof Manager>,
  request: PictureRequest,
  options: CallOptions,
  { limitBytes = PICTURE_LIMIT_BYTES, reads }: PictureReadOptions = {},
): Promise<Picture> {
  const call = (own: CallOptions): Promise<Picture> => readOnce(client, request, own, limitBytes);
  if (reads === undefined) return call(options);
  return reads.read(sharedCallKey(Manager.method.eventStream, request, options.metadata), options, call);
}

/** The members of a picture as they arrive. */
class PictureParts {
  readonly nodesRunning: NodeRunning[] = [];
  readonly physicalNodes: PhysicalNodeConnected[] = [];
  readonly jobsActive: JobWithHistory[] = [];
  readonly jobsPending: JobWithHistory[] = [];

  /** Takes one message; the picture once `event` completes it. */
  add({ event }: EventStreamEvent): Picture | undefined {
    switch (event.case) {
      case "nodeRunning":
        this.nodesRunning.push(event.value);
        break;
      case "physicalNodeConnected":
        this.physicalNodes.push(event.value);
        break;
      case "jobActive":
        if (event.value.jobWithHistory !== undefined) this.jobsActive.push(event.value.jobWithHistory);
        break;
      case "jobPending":
        if (event.value.jobWithHistory !== undefined) this.jobsPending.push(event.value.jobWithHistory);
        break;
      case "initialDataComplete":
        return { nodesRunning: this.nodesRunning, physicalNodes: this.physicalNodes, jobsActive: this.jobsActive, jobsPending: this.jobsPending, health: event.value.health };
      default:
        // A live event before the picture is complete (a Manager that interleaves), or a
        // member this gateway does not know: not part of the picture.
        break;
    }
    return undefined;
  }
}

function readOnce(client: BytesClient<typeof Manager>, request: PictureRequest, options: CallOptions, limitBytes: number): Promise<Picture> {
  return new Promise<Picture>((resolve, reject) => {
    const parts = new PictureParts();
    let bytesRead = 0;
    let settled = false;
    let cancel = (): void => undefined;
    const finish = (outcome: { picture: Picture } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      // An event stream never ends by itself: once the picture is read, it is cancelled.
      cancel();
      if ("picture" in outcome) resolve(outcome.picture);
      else reject(outcome.error);
    };
    cancel = client.eventStream(request, options)({
      message: (bytes) => {
        if (settled) return;
        bytesRead += bytes.length;
        if (bytesRead > limitBytes) {
          finish({ error: new UnusableAnswerError(`the Manager's picture is larger than ${String(limitBytes)} bytes`) });
          return;
        }
        let message: EventStreamEvent;
        try {
          message = fromBinary(EventStreamEventSchema, bytes);
        } catch (error) {
          finish({ error: new UnusableAnswerError("an EventStreamEvent from the Manager does not parse", { cause: error }) });
          return;
        }
        const picture = parts.add(message);
        if (picture !== undefined) finish({ picture });
      },
      end: () => {
        finish({ error: new UnusableAnswerError("the Manager's event stream ended before its picture was complete") });
      },
      error: (error: GrpcError) => {
        finish({ error });
      },
    });
  });
}
