// The reference Manager's implementation of norsk.api.manager.Manager: the handlers of each
// resource, assembled into one ServiceImpl. Every RPC is a named module function of its
// resource's file (jobs, lifecycle, nodes, streams) taking the ManagerContext first, so stack
// traces and profiles name it; that file's `…Handlers(context)` binds the context. Two rules
// apply to all of them here:
// - a unary reply (success or error) waits until the writes it made or read have committed
//   (group commit, src/commits.ts);
// - once the store has been closed, every call answers UNAVAILABLE instead of failing inside
//   SQLite.
import type { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { ServiceImpl } from "norsk-manager-contract/grpc/index.js";
import type { ManagerContext } from "./context.js";
import { jobHandlers } from "./jobs.js";
import { lifecycleHandlers } from "./lifecycle.js";
import { nodeHandlers } from "./nodes.js";
import { streamHandlers } from "./streams.js";
import type { StreamCounters } from "./streams.js";

export function managerService(context: ManagerContext, counters: StreamCounters): ServiceImpl<typeof Manager> {
  const { jobSearch, ...jobs } = jobHandlers(context);
  const { eventStream, createStatusChannel } = streamHandlers(context, counters);
  const unary = { ...jobs, ...lifecycleHandlers(context), ...nodeHandlers(context) };
  return {
    createJob: durable(context, unary.createJob),
    updateJob: durable(context, unary.updateJob),
    deleteJob: durable(context, unary.deleteJob),
    startJob: durable(context, unary.startJob),
    stopJob: durable(context, unary.stopJob),
    completeJob: durable(context, unary.completeJob),
    createAwsNode: durable(context, unary.createAwsNode),
    createOciNode: durable(context, unary.createOciNode),
    terminateNode: durable(context, unary.terminateNode),
    updatePhysicalNode: durable(context, unary.updatePhysicalNode),
    jobSearch: guarded(context, jobSearch),
    eventStream: guarded(context, eventStream),
    createStatusChannel: guarded(context, createStatusChannel),
  };
}

function ensureOpen(context: ManagerContext): void {
  if (!context.store.open) throw new GrpcError(Code.UNAVAILABLE, "the manager is shutting down");
}

/** `handler` behind the open-store guard, replying once the writes it made or read have committed. */
function durable<A extends unknown[], R>(context: ManagerContext, handler: (...args: A) => R) {
  return async (...args: A): Promise<Awaited<R>> => {
    ensureOpen(context);
    try {
      const result = await handler(...args);
      await context.commits.settled();
      return result;
    } catch (error) {
      await context.commits.settled();
      throw error;
    }
  };
}

// Streams commit what is pending themselves before reading (flush), so they only need the guard.
function guarded<A extends unknown[], R>(context: ManagerContext, handler: (...args: A) => R) {
  return (...args: A): R => {
    ensureOpen(context);
    return handler(...args);
  };
}
