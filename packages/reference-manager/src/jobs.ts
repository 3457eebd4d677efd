// Job records: CreateJob, UpdateJob, DeleteJob and JobSearch.
//
// A job is stored with current_hash set to its hash (src/hash.ts). Every committed
// job change, creation included, is published as job_updated carrying the job and the
// history entries that change appended (picture.ts); deletion as job_deleted. (job_pending
// and job_active appear only in EventStream's current picture, with the whole history: a live
// subscriber learns a job's state from job_updated.)
import { create, toBinary } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { EventStreamEventSchema, JobSearchRequestSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { CurrentJob, Job, JobSearchRequest, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobId } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { HandlerContext, ServiceImpl } from "norsk-manager-contract/grpc/index.js";
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

// Filters are compiled before anything is sent, so a bad one fails the call with no results.
// The jobs are read a page at a time (SEARCH_PAGE jobs or SEARCH_PAGE_BYTES, in job id order), and the next page only
// once the client has taken the matches of this one (the server writes with back-pressure), so
// a search holds one page in memory however many jobs match and however slowly its client
// reads. Each page is one synchronous read after pending writes commit (no cursor is held open
// across turns); the whole is not one snapshot: a job written during a long search is seen as
// it is when its page is read (one created behind the page already read, or deleted before its
// page, is not seen), and each job is sent at most once, always in id order. A search with a
// regular expression is matched on the scan worker (scanner.ts), a page at a time.
async function* jobSearch(
  context: ManagerContext,
  request: JobSearchRequest,
  { signal }: HandlerContext,
): AsyncGenerator<CurrentJob> {
  const matchPage = hasRegex(request.jobFilter) ? scanning(context, request, signal) : matching(compileSearch(request.jobFilter));
  const onlyId = pinnedId(request.jobFilter);
  let after: string | undefined;
  for (;;) {
    context.commits.flush();
    const page = readPage(context.store, onlyId, after);
    // Even an empty first page is matched: that is where a regular expression is compiled.
    yield* await matchPage(page);
    const last = page.rows.at(-1);
    if (onlyId !== undefined || last === undefined || signal.aborted) return;
    after = last.id;
  }
}

/**
 * Jobs read from the store at a time by a search: some 100 KB of jobs of a few hundred bytes.
 * Each page is one seek on the primary key, so the page size barely changes a long listing's speed.
 */
export const SEARCH_PAGE = 256;

/**
 * The most job bytes a search's page holds (one job larger than this is a page alone): with
 * the server's stream buffer, what a search whose client stalls keeps in memory.
 */
export const SEARCH_PAGE_BYTES = 64 * 1024;

/** The matches of one page, as sent. */
type PageMatcher = (page: Candidates) => Promise<CurrentJob[]> | CurrentJob[];

/** Matches a page on the scan worker; the request is encoded once for every page. */
function scanning(context: ManagerContext, request: JobSearchRequest, signal: AbortSignal): PageMatcher {
  const encoded = toBinary(JobSearchRequestSchema, request);
  const readJobs = readsJob(request.jobFilter);
  return async (page) => {
    const task = { request: encoded, ids: page.rows.map((row) => row.id), jobs: readJobs ? page.rows.map((row) => row.job) : undefined };
    const matched = await context.scanner.scan(task, signal);
    return matched.map((i) => currentJob(page, i));
  };
}

/** Matches a page here: id filters on the id alone, tag and date filters on the decoded job. */
function matching({ matchesId, matchesJob }: CompiledSearch): PageMatcher {
  return (page) => {
    const results: CurrentJob[] = [];
    page.rows.forEach((row, i) => {
      if (!matchesId(row.id)) return;
      // Decoded only for tag and date filters; the reply carries the stored bytes either way.
      if (matchesJob !== undefined && !matchesJob(decodeJob(row.job))) return;
      results.push(currentJob(page, i));
    });
    return results;
  };
}

interface Candidates {
  /** The jobs to test, in job id order. */
  readonly rows: readonly JobRow[];
  readonly instancesOf: (id: string) => InstanceRow[];
}

/** The page of jobs after `after` (from the first when undefined), or the one job `onlyId` when given. */
function readPage(store: Store, onlyId: string | undefined, after: string | undefined): Candidates {
  if (onlyId !== undefined) {
    const row = store.job(onlyId);
    return { rows: row === undefined ? [] : [row], instancesOf: (id) => store.instancesOf(id) };
  }
  const rows = store.jobPage(after, SEARCH_PAGE, SEARCH_PAGE_BYTES);
  const first = rows[0];
  const last = rows.at(-1);
  if (first === undefined || last === undefined) return { rows, instancesOf: () => [] };
  const byJob = store.instancesByJob({ first: first.id, last: last.id });
  return { rows, instancesOf: (id) => byJob.get(id) ?? [] };
}

function currentJob({ rows, instancesOf }: Candidates, index: number): CurrentJob {
  const row = rows[index];
  if (row === undefined) throw new Error(`scan answered with candidate ${index} of ${rows.length}`);
  // The reply carries the stored bytes, never decoded here.
  return currentJobFromStored(row.job, instancesOf(row.id));
}
