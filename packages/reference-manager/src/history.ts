// Job history entries (JobHistoryEntry), built as the bytes the store keeps. A job_updated
// entry is stored without its previous_job: the store keeps the replaced job's bytes beside
// it (copied inside SQLite, never decoded on the UpdateJob path), and decodeEntry() puts them
// back, so fields this build does not know survive byte for byte.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  JobHistoryEntrySchema,
  JobHistoryJobStopping_Reason,
  JobHistoryJobUpdatedSchema,
  JobSchema,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobHistoryEntry } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { NodeMetadata, RunningNodeMetadata } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { HistoryRow } from "./store.js";


type EntryInit = MessageInitShape<typeof JobHistoryEntrySchema>["historyEntry"];

function encode(historyEntry: EntryInit): Uint8Array {
  return toBinary(JobHistoryEntrySchema, create(JobHistoryEntrySchema, { historyEntry }));
}

/** Decodes a stored entry; `replaced` (the store's copy of the job it replaced) becomes previous_job. */
export function decodeEntry(row: HistoryRow): JobHistoryEntry {
  const entry = fromBinary(JobHistoryEntrySchema, row.entry);
  if (row.replaced !== undefined && entry.historyEntry.case === "jobUpdated") {
    entry.historyEntry.value.previousJob = fromBinary(JobSchema, row.replaced);
  }
  return entry;
}

export function createdEntry(timestamp: Timestamp): Uint8Array {
  return encode({ case: "jobCreated", value: { timestamp } });
}

// Field numbers of the job_updated entry, read from the descriptors once: updatedEntry()
// is on the UpdateJob path, so it writes its three small messages directly.
const ENTRY_JOB_UPDATED = JobHistoryEntrySchema.field.jobUpdated.number;
const UPDATED_TIMESTAMP = JobHistoryJobUpdatedSchema.field.timestamp.number;
const SECONDS = TimestampSchema.field.seconds.number;
const NANOS = TimestampSchema.field.nanos.number;

/** Without previous_job: Store.replaceJobChecked keeps the replaced job beside the entry. */
export function updatedEntry(timestamp: Timestamp): Uint8Array {
  const writer = new BinaryWriter().tag(ENTRY_JOB_UPDATED, WireType.LengthDelimited).fork();
  writer.tag(UPDATED_TIMESTAMP, WireType.LengthDelimited).fork();
  if (timestamp.seconds !== 0n) writer.tag(SECONDS, WireType.Varint).int64(timestamp.seconds);
  if (timestamp.nanos !== 0) writer.tag(NANOS, WireType.Varint).int32(timestamp.nanos);
  return writer.join().join().finish();
}

/** Where an instance runs, as history entries describe it. */
export interface Placement {
  readonly role: string;
  readonly nodeMetadata: NodeMetadata;
  readonly runningNodeMetadata: RunningNodeMetadata | undefined;
}

export function runningEntry(timestamp: Timestamp, placement: Placement): Uint8Array {
  return encode({ case: "jobRunning", value: { timestamp, ...placement } });
}

export function stoppingEntry(
  timestamp: Timestamp,
  placement: Placement,
  reason: JobHistoryJobStopping_Reason = JobHistoryJobStopping_Reason.JOB_STOPPED_USER_REQUESTED,
): Uint8Array {
  return encode({ case: "jobStopping", value: { timestamp, ...placement, reason } });
}

export function stoppedEntry(timestamp: Timestamp, placement: Placement): Uint8Array {
  return encode({ case: "jobStopped", value: { timestamp, ...placement } });
}

export function completedEntry(timestamp: Timestamp): Uint8Array {
  return encode({ case: "jobCompleted", value: { timestamp } });
}
