// The allowance of refused credentials (--auth-refusal-limit): each address may be answered 401
// a few times in a window; past that, its requests to protected routes are answered 429 before
// their credentials are checked, so that guessing keys or tokens is as slow as the allowance
// and costs no verification. Counted apart from --rate-limit (whose count a 401 never reaches:
// access is enforced before it), in this process or, with --rate-limit-store, in the store
// every replica shares. An address that reaches it is remembered here until its window ends, so
// that its requests cost no call to the store and no check of their credentials; a replica
// that has not seen it reach the allowance checks one more request, whose refusal is then a
// 429 too (the count says it is over): across replicas, an address gets the allowance's 401s
// and no more, and one guess more per replica is checked.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { problem } from "../http/problem.js";
import { CLIENTS, describeWindow } from "./rate-limit.js";
import type { Counter } from "./rate-limit-store.js";

export interface RefusalLimitOptions {
  /** 401s an address may get in a window. */
  readonly max: number;
  /** The window, in ms. */
  readonly windowMs: number;
  /** Where the refusals are counted. Required: localCounter() or the shared store. */
  readonly counter: Counter;
  /** Told of each request answered 429 by this limit. */
  readonly onLimited?: () => void;
}

export interface RefusalLimit {
  /** Answers 429 a request of an address over its allowance; else lets it through to its credentials' check. */
  readonly guard: onRequestHookHandler;
  /**
   * Counts one 401 of the request's address; resolves, once counted (or found uncountable),
   * with the 429 to answer instead when the address is past its allowance.
   */
  readonly refused: (request: FastifyRequest, reply: FastifyReply) => Promise<Error | undefined>;
}

/** The refusal limit; `isProtected` tells the requests whose credentials are checked. */
export function refusalLimit(options: RefusalLimitOptions, isProtected: (request: FastifyRequest) => boolean): RefusalLimit {
  /** Addresses over their allowance, with when their window ends (ms since the epoch), in order of entry. */
  const over = new Map<string, number>();
  const detail = `more than ${String(options.max)} requests with refused credentials from this address in ${describeWindow(options.windowMs)}`;
  return {
    guard: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const until = isProtected(request) ? over.get(request.ip) : undefined;
      if (until === undefined || until <= Date.now()) {
        if (until !== undefined) over.delete(request.ip);
        done();
        return;
      }
      done(tooMany(reply, until));
    },
    refused: async (request, reply) => {
      const count = await options.counter.count(`refused address ${request.ip}`, options.windowMs, options.max);
      if (count === undefined || count.current < options.max) return undefined;
      const until = Date.now() + count.ttl;
      over.delete(request.ip);
      over.set(request.ip, until);
      if (over.size > CLIENTS) over.delete(over.keys().next().value ?? request.ip);
      return count.current > options.max ? tooMany(reply, until) : undefined;
    },
  };

  function tooMany(reply: FastifyReply, until: number): Error {
    options.onLimited?.();
    const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1_000));
    // A refusal's challenge would say the credentials were checked and wrong.
    reply.removeHeader("www-authenticate");
    void reply.header("retry-after", String(seconds));
    return problem("TOO_MANY_REQUESTS", `${detail}; try again in ${String(seconds)} s`);
  }
}
