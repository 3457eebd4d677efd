// Job records: CreateJob, UpdateJob, DeleteJob and JobSearch.
//
// A job is stored with current_hash set to its hash (src/manager/hash.ts). Every committed
// job change, creation included, is published as job_updated carrying the job and the
// history entries that change appended (picture.ts); deletion as job_deleted. (job_pending
// and job_active appear only in EventStream's current picture, with the whole history: a live
// subscriber learns a job's state from job_updated.)
import { create, toBinary } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { EventStreamEventSchema, JobSearchRequestSchema } from "../gen/norsk/api/manager_pb.js";
import type { CurrentJob, Job, JobSearchRequest, Manager } from "../gen/norsk/api/manager_pb.js";
import type { JobId } from "../gen/norsk/api/common_pb.js";
import type { HandlerContext, ServiceImpl } from "../grpc/index.js";
import { commit } from "./context.js";
import type { ManagerContext } from "./context.js";
import { aborted, alreadyExists, notFound, required, requiredId } from "./errors.js";
import { compileSearch, hasRegex, pinnedId, readsJob } from "./filters.js";
import type { CompiledSearch } from "./filters.js";
import { hashOwnedJob, withCurrentHash } from "./hash.js";
import { createdEntry, updatedEntry } from "./history.js";
import { currentJobFromStored, decodeJob, jobUpdatedEvent } from "./picture.js";
import type { InstanceRow, JobRow, Store } from "./store.js";

type JobHandlers = Pick<ServiceImpl<typeof Manager>, "createJob" | "updateJob" | "deleteJob" | "jobSearch">;

export function jobHandlers(context: ManagerContext): JobHandlers {
  return {
    createJob: (job) => createJob(context, job),
    updateJob: (job) => updateJob(context, job),
    deleteJob: (request) => deleteJob(context, request),
    jobSearch: (request, call) => jobSearch(context, request, call),
  };
}

// A job id that is empty or breaks the id rule (errors.ts, requiredId): INVALID_ARGUMENT; an
// existing id: ALREADY_EXISTS. The request's current_hash is ignored; the reply carries the
// hash the job is stored with.
function createJob(context: ManagerContext, job: Job): { hash: bigint } {
  const { store } = context;
  const id = requiredId(job.jobId?.jobId, "job_id");
  if (store.hasJob(id)) throw alreadyExists(`job ${id} already exists`);
  const { hash, canonical } = hashOwnedJob(job);
  const now = context.now();
  commit(
    context,
    () => {
      store.insertJob(id, hash, withCurrentHash(canonical, hash));
      store.appendHistory(id, createdEntry(now));
    },
    () => ({ events: [jobUpdatedEvent(store, id)], summary: `job ${id} created` }),
  );
  return { hash };
}

// Replaces the whole job. A non-zero current_hash is a test-and-set on the stored hash
// (ABORTED when it differs); zero replaces unconditionally. History records the job as it was
// before, byte for byte.
function updateJob(context: ManagerContext, job: Job): { hash: bigint } {
  const { store } = context;
  const id = required(job.jobId?.jobId, "job_id");
  const expected = job.currentHash;
  const { hash, canonical } = hashOwnedJob(job);
  const now = context.now();
  commit(
    context,
    () => {
      if (store.replaceJobChecked(id, expected, hash, withCurrentHash(canonical, hash), updatedEntry(now))) return;
      const stored = store.job(id);
      if (stored === undefined) throw notFound(`job ${id} not found`);
      throw aborted(`current_hash does not match: job ${id} has hash ${stored.hash}, the request has ${expected}`);
    },
    () => ({ events: [jobUpdatedEvent(store, id)], summary: `job ${id} updated` }),
  );
  return { hash };
}

// Deletes the job with its history and instances (a running job is dropped as it is).
function deleteJob(context: ManagerContext, request: JobId): Empty {
  const { store } = context;
  const id = required(request.jobId, "job_id");
  if (!store.hasJob(id)) throw notFound(`job ${id} not found`);
  commit(
    context,
    () => store.deleteJob(id),
    () => ({
      events: [create(EventStreamEventSchema, { event: { case: "jobDeleted", value: { jobId: { jobId: id } } } })],
      summary: `job ${id} deleted`,
    }),
  );
  return create(EmptySchema);
}

// Filters are compiled before anything is sent, so a bad one fails the call with no results;
// pending writes are committed, then the candidates are read in one synchronous read (a
// consistent view, and no cursor held open across turns) and the matches streamed in job id
// order. A search with a regular expression is matched on the scan worker (scanner.ts), from
// that same read.
async function* jobSearch(
  context: ManagerContext,
  request: JobSearchRequest,
  { signal }: HandlerContext,
): AsyncGenerator<CurrentJob> {
  const { store } = context;
  if (!hasRegex(request.jobFilter)) {
    const search = compileSearch(request.jobFilter);
    context.commits.flush();
    yield* searchJobs(store, search);
    return;
  }
  context.commits.flush();
  const candidates = readCandidates(store, pinnedId(request.jobFilter));
  const { rows } = candidates;
  const task = {
    request: toBinary(JobSearchRequestSchema, request),
    ids: rows.map((row) => row.id),
    jobs: readsJob(request.jobFilter) ? rows.map((row) => row.job) : undefined,
  };
  const matched = await context.scanner.scan(task, signal);
  yield* matched.map((i) => currentJob(candidates, i));
}

interface Candidates {
  /** The jobs to test, in job id order. */
  readonly rows: readonly JobRow[];
  readonly instancesOf: (id: string) => InstanceRow[];
}

/** The jobs a search looks at: the one with id `onlyId` when given, else all of them. */
function readCandidates(store: Store, onlyId: string | undefined): Candidates {
  if (onlyId !== undefined) {
    const row = store.job(onlyId);
    return { rows: row === undefined ? [] : [row], instancesOf: (id) => store.instancesOf(id) };
  }
  const byJob = store.instancesByJob();
  return { rows: store.jobs(), instancesOf: (id) => byJob.get(id) ?? [] };
}

function currentJob({ rows, instancesOf }: Candidates, index: number): CurrentJob {
  const row = rows[index];
  if (row === undefined) throw new Error(`scan answered with candidate ${index} of ${rows.length}`);
  // The reply carries the stored bytes, never decoded here.
  return currentJobFromStored(row.job, instancesOf(row.id));
}

/** Every job matching `search`, in job id order, with its instances. */
export function searchJobs(store: Store, search: CompiledSearch): CurrentJob[] {
  const candidates = readCandidates(store, search.onlyId);
  const { matchesId, matchesJob } = search;
  const results: CurrentJob[] = [];
  candidates.rows.forEach((row, i) => {
    if (!matchesId(row.id)) return;
    // Decoded only for tag and date filters; the reply carries the stored bytes either way.
    if (matchesJob !== undefined && !matchesJob(decodeJob(row.job))) return;
    results.push(currentJob(candidates, i));
  });
  return results;
}
