// JobSearch filters: each JobFilter is compiled once per request into a predicate, and a job
// matches when every predicate holds (AND; no filter matches every job). Invalid requests are
// rejected before anything is read, with INVALID_ARGUMENT and a message naming the field.
//
// Semantics chosen where the proto leaves them open:
// - id and tag regexes are RE2 syntax, searched (not anchored): use ^...$ for a whole-value
//   match. They run in time linear in the text (regex.ts, which also lists how RE2 differs
//   from a JavaScript RegExp); one that RE2 cannot run (a backreference, a lookaround, bad
//   syntax, longer than MAX_REGEX_LENGTH, a program over MAX_PROGRAM_SIZE) is rejected.
// - tag eq matches jobs that have the tag with that value; neq is its complement (jobs without
//   the tag match neq); re requires the tag; exists=true/false requires presence/absence.
// - date comparisons are on start_date_time, exact to the nanosecond; a job without
//   start_date_time matches no date filter; within is inclusive at both ends.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { DateFilter, IdFilter, Job, JobFilter, TagFilter } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { compileRegex } from "./regex.js";

export { MAX_PROGRAM_SIZE, MAX_REGEX_LENGTH } from "./regex.js";

export type JobPredicate = (job: Job) => boolean;

export type IdPredicate = (id: string) => boolean;

export interface CompiledSearch {
  /**
   * Set when an id eq filter pins the search to a single job id, so the store can look it up
   * by key instead of scanning; the filters still all apply, that one included.
   */
  readonly onlyId: string | undefined;
  /** The id filters, ANDed, on the job id alone (true when there are none). */
  readonly matchesId: IdPredicate;
  /** The tag and date filters, ANDed; undefined when there are none, so no job need be decoded. */
  readonly matchesJob: JobPredicate | undefined;
  /** Every filter: matchesId of the job's id and matchesJob. */
  readonly matches: JobPredicate;
}

/** Compiles a JobSearchRequest's filters; throws GrpcError(INVALID_ARGUMENT) for a bad one. */
export function compileSearch(filters: readonly JobFilter[]): CompiledSearch {
  const onId: IdPredicate[] = [];
  const onJob: JobPredicate[] = [];
  for (const filter of filters) {
    const f = filter.jobFilter;
    switch (f.case) {
      case "idFilter":
        onId.push(idPredicate(f.value));
        break;
      case "tagFilter":
        onJob.push(tagPredicate(f.value));
        break;
      case "dateFilter":
        onJob.push(datePredicate(f.value));
        break;
      case undefined:
        throw invalid("job_filter: empty filter; set one of tag_filter, id_filter, date_filter");
    }
  }
  const matchesId: IdPredicate = (id) => onId.every((p) => p(id));
  const matchesJob: JobPredicate | undefined = onJob.length === 0 ? undefined : (job) => onJob.every((p) => p(job));
  const matches: JobPredicate = (job) => matchesId(job.jobId?.jobId ?? "") && (matchesJob === undefined || matchesJob(job));
  return { onlyId: pinnedId(filters), matchesId, matchesJob, matches };
}

/** The value of the first id eq filter, which pins a search to one job id; else undefined. */
export function pinnedId(filters: readonly JobFilter[]): string | undefined {
  for (const { jobFilter: f } of filters) {
    if (f.case === "idFilter" && f.value.comparison.case === "eq") return f.value.comparison.value;
  }
  return undefined;
}

/** True when a filter is a regex (id or tag re): the search is run off the event loop. */
export function hasRegex(filters: readonly JobFilter[]): boolean {
  return filters.some(({ jobFilter: f }) => (f.case === "idFilter" || f.case === "tagFilter") && f.value.comparison.case === "re");
}

/** True when a filter reads the job itself (tag or date), not only its id. */
export function readsJob(filters: readonly JobFilter[]): boolean {
  return filters.some(({ jobFilter: f }) => f.case === "tagFilter" || f.case === "dateFilter");
}

function idPredicate(filter: IdFilter): IdPredicate {
  const c = filter.comparison;
  switch (c.case) {
    case "eq": {
      const wanted = c.value;
      return (id) => id === wanted;
    }
    case "neq": {
      const unwanted = c.value;
      return (id) => id !== unwanted;
    }
    case "re": {
      const re = compileRegex("id_filter.re", c.value);
      return (id) => re.test(id);
    }
    case undefined:
      throw invalid("id_filter: no comparison set; set one of eq, neq, re");
  }
}

function tagPredicate(filter: TagFilter): JobPredicate {
  const name = filter.tagName;
  if (name === "") throw invalid("tag_filter.tagName is required");
  const has = (job: Job): boolean => Object.hasOwn(job.tags, name);
  const c = filter.comparison;
  switch (c.case) {
    case "eq": {
      const value = c.value;
      return (job) => has(job) && job.tags[name] === value;
    }
    case "neq": {
      const value = c.value;
      return (job) => !has(job) || job.tags[name] !== value;
    }
    case "re": {
      const re = compileRegex("tag_filter.re", c.value);
      return (job) => {
        const value = job.tags[name];
        return has(job) && value !== undefined && re.test(value);
      };
    }
    case "exists": {
      const wanted = c.value;
      return (job) => has(job) === wanted;
    }
    case undefined:
      throw invalid("tag_filter: no comparison set; set one of eq, neq, re, exists");
  }
}

function datePredicate(filter: DateFilter): JobPredicate {
  const c = filter.comparison;
  const on = (test: (start: Timestamp) => boolean): JobPredicate => {
    return (job) => job.startDateTime !== undefined && test(job.startDateTime);
  };
  switch (c.case) {
    case "eq": {
      const t = c.value;
      return on((s) => compareTimestamps(s, t) === 0);
    }
    case "lt": {
      const t = c.value;
      return on((s) => compareTimestamps(s, t) < 0);
    }
    case "lte": {
      const t = c.value;
      return on((s) => compareTimestamps(s, t) <= 0);
    }
    case "gt": {
      const t = c.value;
      return on((s) => compareTimestamps(s, t) > 0);
    }
    case "gte": {
      const t = c.value;
      return on((s) => compareTimestamps(s, t) >= 0);
    }
    case "within": {
      const { startDate, endDate } = c.value;
      if (startDate === undefined) throw invalid("date_filter.within.start_date is required");
      if (endDate === undefined) throw invalid("date_filter.within.end_date is required");
      if (compareTimestamps(startDate, endDate) > 0) {
        throw invalid("date_filter.within: end_date is before start_date");
      }
      return on((s) => compareTimestamps(s, startDate) >= 0 && compareTimestamps(s, endDate) <= 0);
    }
    case undefined:
      throw invalid("date_filter: no comparison set; set one of eq, lt, lte, gt, gte, within");
  }
}

/** Orders two timestamps exactly: seconds first, then nanos. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos === b.nanos ? 0 : a.nanos < b.nanos ? -1 : 1;
}

function invalid(message: string): GrpcError {
  return new GrpcError(Code.INVALID_ARGUMENT, message);
}
