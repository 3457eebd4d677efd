// The columns the store keeps beside each job's bytes so that EventStream's current picture
// (picture.ts) can select its jobs in SQL, through an index, without decoding every stored job:
// the job's state and its start_date_time. They are read from the stored bytes here, on every
// write of a job and once per job when a schema-1 database is migrated (store.ts), so they
// cannot disagree with the bytes.
//
// Only the two top-level fields are read: every other field is skipped by its length, so a
// large job costs a walk over its few top-level tags, not a decode.
import { fromBinary } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";

/** What the store indexes of a job. */
export interface JobIndex {
  /** Job.state as its enum number (PRE is 0, the proto default). */
  readonly state: number;
  /** Job.start_date_time, undefined when the job has none. */
  readonly start: { readonly seconds: bigint; readonly nanos: number } | undefined;
}

const STATE = JobSchema.field.state.number;
const START = JobSchema.field.startDateTime.number;

/** The index of PRE with no start: what bytes that are not a Job are indexed as. */
const NOT_A_JOB: JobIndex = { state: 0, start: undefined };

/**
 * The index columns of a stored job. Protobuf's rules apply: the last `state` wins, and several
 * start_date_time fields merge. Bytes that do not parse as a Job (the store never writes such;
 * a damaged row might hold them) index as PRE with no start, so they are never in a picture.
 */
export function jobIndexOf(job: Uint8Array): JobIndex {
  try {
    const reader = new BinaryReader(job);
    let state = 0;
    const starts: Uint8Array[] = [];
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field === STATE && wireType === WireType.Varint) state = reader.int32();
      else if (field === START && wireType === WireType.LengthDelimited) starts.push(reader.bytes());
      else reader.skip(wireType, field);
    }
    if (starts.length === 0) return { state, start: undefined };
    const timestamp = fromBinary(TimestampSchema, starts.length === 1 ? (starts[0] ?? new Uint8Array()) : concat(starts));
    return { state, start: { seconds: timestamp.seconds, nanos: timestamp.nanos } };
  } catch {
    return NOT_A_JOB;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
