// The job hash: a 64-bit signed integer derived from the job's canonical encoding, so that
// equal jobs have equal hashes whatever order their maps were built in and whatever
// current_hash they carry. Clients use it as a compare-and-swap token (UpdateJob's
// current_hash, the gateway's ETag), so it must be stable across restarts and processes:
// it depends on the bytes alone, never on in-memory state.
import { hash as digest } from "node:crypto";
import { toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";

/**
 * The map fields of Job, found once from the descriptor. Only top-level maps exist today;
 * test/hash.test.ts fails if a map appears inside a message reachable from Job, so
 * that canonicalisation is extended rather than silently order-dependent.
 */
const MAP_FIELDS: readonly string[] = JobSchema.fields.filter((f) => f.fieldKind === "map").map((f) => f.localName);

const CURRENT_HASH_NUMBER = JobSchema.field.currentHash.number;

export interface HashedJob {
  /** SHA-256 of `canonical`, first 8 bytes read as a big-endian signed 64-bit integer. */
  readonly hash: bigint;
  /** The canonical encoding: maps sorted by key, current_hash cleared, unknown fields by number. */
  readonly canonical: Uint8Array;
}

/** Hashes a job. Does not modify `job`. */
export function hashJob(job: Job): HashedJob {
  const canonical = canonicalJobBytes(job);
  return { hash: hashBytes(canonical), canonical };
}

/**
 * Hashes a job the caller owns (a decoded request, a job just read from the store),
 * normalising it in place instead of a copy: its maps are rebuilt in key order and its
 * current_hash is set to the result. Same hash and bytes as hashJob; on the write path it
 * saves a copy whose different shape also makes protobuf-es's encoder slower.
 */
export function hashOwnedJob(job: Job): HashedJob {
  job.currentHash = 0n;
  const fields = job as unknown as Record<string, Record<string, string>>;
  for (const name of MAP_FIELDS) fields[name] = sortedRecord(fields[name] ?? {});
  if (job.$unknown !== undefined && job.$unknown.length > 1) job.$unknown.sort((a, b) => a.no - b.no);
  const canonical = toBinary(JobSchema, job);
  const hash = hashBytes(canonical);
  job.currentHash = hash;
  return { hash, canonical };
}

export function jobHash(job: Job): bigint {
  return hashJob(job).hash;
}

/**
 * The canonical encoding. protobuf-es writes map entries in the object's iteration order,
 * which is insertion order for non-integer keys, so maps are rebuilt with sorted keys
 * (integer-like keys always iterate first in ascending numeric order, which is just as
 * deterministic). A shallow copy is enough: nothing below the top level is modified.
 */
export function canonicalJobBytes(job: Job): Uint8Array {
  const copy: Record<string, unknown> = { ...job, currentHash: 0n };
  for (const name of MAP_FIELDS) copy[name] = sortedRecord(copy[name] as Record<string, string>);
  if (job.$unknown !== undefined && job.$unknown.length > 1) {
    copy.$unknown = [...job.$unknown].sort((a, b) => a.no - b.no);
  }
  return toBinary(JobSchema, copy as Job);
}

/**
 * The stored form of a job: its canonical bytes with current_hash appended. A field may
 * appear anywhere in a protobuf encoding, so this is a valid Job whose current_hash is
 * `hash`, obtained without encoding the job a second time.
 */
export function withCurrentHash(canonical: Uint8Array, hash: bigint): Uint8Array {
  return new BinaryWriter().raw(canonical).tag(CURRENT_HASH_NUMBER, WireType.Varint).int64(hash).finish();
}

function hashBytes(bytes: Uint8Array): bigint {
  // crypto.hash (Node >= 20.12, as engines requires) is the one-shot form: half the cost of createHash here.
  return digest("sha256", bytes, "buffer").readBigInt64BE(0);
}

/** `record` itself when its keys already iterate in sorted order (the common case), else a sorted copy. */
function sortedRecord(record: Record<string, string>): Record<string, string> {
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = (keys[i - 1] ?? "") <= (keys[i] ?? "");
  if (inOrder) return record;
  const sorted: Record<string, string> = {};
  for (const key of keys.sort()) sorted[key] = record[key] ?? "";
  return sorted;
}
