// The reference Manager's implementation of norsk.api.manager.Manager: the handlers of each
// resource, assembled into one ServiceImpl, with two rules applied to all of them here:
// - a unary reply (success or error) waits until the writes it made or read have committed
//   (group commit, src/manager/commits.ts);
// - once the store has been closed, every call answers UNAVAILABLE instead of failing inside
//   SQLite.
import type { Manager } from "../gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "../grpc/index.js";
import type { ServiceImpl } from "../grpc/index.js";
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
  const ensureOpen = (): void => {
    if (!context.store.open) throw new GrpcError(Code.UNAVAILABLE, "the manager is shutting down");
  };
  const durable = <A extends unknown[], R>(handler: (...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> => {
      ensureOpen();
      try {
        const result = await handler(...args);
        await context.commits.settled();
        return result;
      } catch (error) {
        await context.commits.settled();
        throw error;
      }
    };
  // Streams commit what is pending themselves before reading (flush), so they only need the guard.
  const guarded = <A extends unknown[], R>(handler: (...args: A) => R) =>
    (...args: A): R => {
      ensureOpen();
      return handler(...args);
    };
  return {
    createJob: durable(unary.createJob),
    updateJob: durable(unary.updateJob),
    deleteJob: durable(unary.deleteJob),
    startJob: durable(unary.startJob),
    stopJob: durable(unary.stopJob),
    completeJob: durable(unary.completeJob),
    createAwsNode: durable(unary.createAwsNode),
    createOciNode: durable(unary.createOciNode),
    terminateNode: durable(unary.terminateNode),
    updatePhysicalNode: durable(unary.updatePhysicalNode),
    jobSearch: guarded(jobSearch),
    eventStream: guarded(eventStream),
    createStatusChannel: guarded(createStatusChannel),
  };
}
