// A load that once made the gateway fail unrelated requests: many clients opening an event
// stream and dropping it as soon as it starts, while other clients read a job over REST and a
// few stay on the event stream. Each dropped client makes the gateway cancel its gRPC stream
// (an HTTP/2 RST_STREAM to the Manager); a Node Manager's HTTP/2 server takes a sustained flow of
// those for a rapid-reset attack and closes the whole HTTP/2 session, failing every call on it.
// Used by a test (a few seconds) and by bench/stream-churn.ts (longer, with figures).
import { Agent, request } from "node:http";
import type { IncomingMessage } from "node:http";

export interface ChurnOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** A job that exists; the readers GET it. */
  readonly jobId: string;
  /** How long the load runs, in ms. */
  readonly durationMs: number;
  /** Clients opening and dropping GET /v1/events, each in a loop. Default: 30. */
  readonly churners?: number;
  /** Stream starts per second, all churners together (paced). Default: 240. */
  readonly streamsPerSecond?: number;
  /** Clients reading the job in a loop over keep-alive connections. Default: 8. */
  readonly readers?: number;
  /** Clients that stay on GET /v1/events for the whole run. Default: 4. */
  readonly followers?: number;
}

export interface ChurnResult {
  /** Status of every GET /v1/jobs/{jobId}, counted. */
  readonly reads: Record<number, number>;
  /** Status of every stream start, counted. */
  readonly streamStarts: Record<number, number>;
  /** The status of each `error` event the followers received (a stream ended by a failure), counted. */
  readonly followerErrors: Record<number, number>;
  /** The `code` of each 5xx problem, counted, e.g. {"INTERNAL": 6}. */
  readonly failureCodes: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function count(tally: Record<number | string, number>, key: number | string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => (body += chunk));
    res.on("end", () => {
      resolve(body);
    });
    res.on("error", () => {
      resolve(body);
    });
  });
}

function problemCode(body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === "string" ? parsed.code : "none";
  } catch {
    return "unparsable";
  }
}

/** Opens the stream; resolves with the status once it starts (first bytes) or is refused, then drops it. */
function openAndDrop(url: string, result: ChurnResult): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}/v1/events`, { agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      count(result.streamStarts, status);
      if (status === 200) {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
        return;
      }
      void readAll(res).then((body) => {
        if (status >= 500) count(result.failureCodes, problemCode(body));
        resolve();
      });
    });
    req.on("error", () => {
      resolve();
    });
    req.end();
  });
}

function getJob(url: string, jobId: string, agent: Agent, result: ChurnResult): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}/v1/jobs/${encodeURIComponent(jobId)}`, { agent }, (res) => {
      const status = res.statusCode ?? 0;
      count(result.reads, status);
      void readAll(res).then((body) => {
        if (status >= 500) count(result.failureCodes, problemCode(body));
        resolve();
      });
    });
    req.on("error", () => {
      count(result.reads, 0);
      resolve();
    });
    req.end();
  });
}

/** A client that stays on the stream, passing on the status of each `error` event; returns the function that closes it. */
function follow(url: string, onError: (status: number) => void): () => void {
  const req = request(`${url}/v1/events`, { agent: false }, (res) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      text += chunk;
      const frames = text.split("\n\n");
      text = frames.pop() ?? "";
      for (const frame of frames) {
        if (frame.startsWith("event: error")) onError(Number(/"status":(\d+)/.exec(frame)?.[1] ?? 0));
      }
    });
    res.on("error", () => undefined);
  });
  req.on("error", () => undefined);
  req.end();
  return () => req.destroy();
}

export async function runStreamChurn(options: ChurnOptions): Promise<ChurnResult> {
  const churners = options.churners ?? 30;
  const streamsPerSecond = options.streamsPerSecond ?? 240;
  const result = { reads: {}, streamStarts: {}, followerErrors: {}, failureCodes: {} };
  const until = Date.now() + options.durationMs;
  const closers = Array.from({ length: options.followers ?? 4 }, () =>
    follow(options.url, (status) => {
      count(result.followerErrors, status);
    }),
  );
  // Each churner starts a stream every `periodMs`, so that together they make streamsPerSecond.
  const periodMs = (churners * 1000) / streamsPerSecond;
  const churn = async (): Promise<void> => {
    while (Date.now() < until) {
      const started = Date.now();
      await openAndDrop(options.url, result);
      await sleep(Math.max(0, periodMs - (Date.now() - started)));
    }
  };
  const agent = new Agent({ keepAlive: true });
  const read = async (): Promise<void> => {
    while (Date.now() < until) await getJob(options.url, options.jobId, agent, result);
  };
  try {
    await Promise.all([
      ...Array.from({ length: churners }, (_, i) => sleep((i * periodMs) / churners).then(churn)),
      ...Array.from({ length: options.readers ?? 8 }, read),
    ]);
  } finally {
    for (const close of closers) close();
    agent.destroy();
  }
  return result;
}
