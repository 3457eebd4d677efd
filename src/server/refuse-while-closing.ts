// While the app closes, a request that still arrives (on a connection kept alive) is a 503
// problem: the requests in flight finish, and another replica can take this one.
import type { FastifyInstance } from "fastify";
import { problem } from "../http/problem.js";

/** Answers every request that arrives once `app` has begun to close with the SHUTTING_DOWN problem. */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (_request, _reply, done) => {
    done(closing ? problem("SHUTTING_DOWN", "the gateway is shutting down") : undefined);
  });
}
