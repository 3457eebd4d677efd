// Whether the Manager can be reached, as the log tells it: one line per change of state, not
// one per failed request. An outage is written once at warn when it is first seen (the gRPC
// code and reason of what saw it: a request, a probe, the start-up check) and once at warn when
// the Manager answers again; each request that fails meanwhile is logged at debug, with its
// code and reason and no stack (docs/operations/incidents.md, "The first minute").
import type { FastifyBaseLogger } from "fastify";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { codeName } from "../http/status.js";

/** Why the Manager is counted down: a gRPC code's name (OK for a Manager answering, but not SERVING) and its reason. */
export interface ManagerDown {
  readonly code: string;
  readonly reason: string;
}

/**
 * Failures of a call that say nothing of the request: the Manager could not be reached
 * (UNAVAILABLE), or did not answer within the deadline (DEADLINE_EXCEEDED, which a client's
 * own Grpc-Timeout may also set). Only UNAVAILABLE marks the Manager down: a slow answer is
 * not an outage, and the readiness probe, which has a deadline of its own, tells a hung one.
 */
const MANAGER_FAILURES: ReadonlySet<Code> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED]);

/** The state of the Manager, shared by everything that calls it; each method is told the logger to write with. */
export class ManagerState {
  #up: boolean | undefined;

  /** `fields` are written on each line: the command names the Manager's address (`manager`). Default: none. */
  constructor(private readonly fields: Readonly<Record<string, unknown>> = {}) {}

  /** Whether the Manager was last seen answering; undefined before anything was seen. */
  get up(): boolean | undefined {
    return this.#up;
  }

  /** The Manager answered (SERVING). Logged once: at info the first time, at warn after an outage. */
  answered(log: FastifyBaseLogger): void {
    if (this.#up === true) return;
    const after = this.#up;
    this.#up = true;
    if (after === undefined) log.info(this.fields, "the Manager is serving");
    else log.warn(this.fields, "the Manager is serving again");
  }

  /** The Manager could not be reached, or is not serving: logged at warn when it was not already down. */
  down(log: FastifyBaseLogger, why: ManagerDown): void {
    if (this.#up === false) return;
    this.#up = false;
    log.warn({ ...this.fields, code: why.code, reason: why.reason }, "the Manager cannot be reached");
  }

  /**
   * Logs `error`, which ended a request, if it is a failure of the Manager's (MANAGER_FAILURES):
   * at debug on `requestLog`, without a stack, and, for UNAVAILABLE, the outage once on
   * `log`. Returns false, having logged nothing, for any other error.
   */
  requestFailed(log: FastifyBaseLogger, requestLog: FastifyBaseLogger, error: unknown, message: string): boolean {
    const why = managerFailure(error);
    if (why === undefined) return false;
    requestLog.debug(why, message);
    if (why.code === codeName(Code.UNAVAILABLE)) this.down(log, why);
    return true;
  }
}

/** The code and reason of `error` when it is a failure of the Manager's (MANAGER_FAILURES), else undefined. */
export function managerFailure(error: unknown): ManagerDown | undefined {
  if (!(error instanceof GrpcError) || !MANAGER_FAILURES.has(error.code)) return undefined;
  return { code: codeName(error.code), reason: error.details };
}

/**
 * Logs the failure that ended a stream already answered (its status sent): a failure of the
 * Manager's at debug, with its code and reason (the outage itself is logged once, by the
 * readiness checks and the requests that see it), anything else at warn with its stack.
 */
export function logStreamFailure(requestLog: FastifyBaseLogger, error: unknown, message: string): void {
  const why = managerFailure(error);
  if (why === undefined) requestLog.warn({ err: error }, message);
  else requestLog.debug(why, message);
}
