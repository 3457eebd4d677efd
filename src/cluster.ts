// --workers N|auto: N gateway processes serving one port (node:cluster: the primary holds the
// listening socket and hands connections to the workers). Each worker is a whole gateway with
// its own channel to the Manager; when no --manager is given, the primary runs the one embedded
// reference Manager and the workers are pointed at it, as at any Manager. /metrics, served by
// whichever worker a scrape reaches, is every worker's, aggregated by the primary (prom-client's
// AggregatorRegistry: counters and histograms summed; readiness the least of the workers').
// SIGTERM or SIGINT to the primary is passed to every worker, which drains as a single gateway
// does; the primary exits 0 once all have exited 0 and the embedded Manager is closed.
//
// --workers fails as one process does: a worker tells the primary once it is serving (an IPC
// message after its listen succeeded). One that exits before that, at the first start or as a
// replacement, failed to start (a busy port, a TLS file it cannot read): the primary stops the
// other workers and exits with that worker's exit code, its message already on standard error.
// Only a worker that was serving is replaced when it dies, so a failure that would repeat at
// every start stops the command instead of restarting it forever.
import cluster from "node:cluster";
import type { Worker } from "node:cluster";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "./config.js";
import type { GatewayMetrics } from "./telemetry/metrics.js";

/** Where workerCount looks for the CPUs this process may use. */
export interface CpuSources {
  /** The number of CPUs node may run on (its affinity). Default: os.availableParallelism(). */
  readonly parallelism?: () => number;
  /** Reads a file, or throws when it cannot. Default: fs.readFileSync as UTF-8. */
  readonly read?: (path: string) => string;
}

/**
 * How many workers `setting` asks for: a number, or for "auto" one per CPU this process may use:
 * the CPUs node may run on, no more than its cgroup v2 CPU quota allows (cpuQuotaCpus), so that a
 * container limited to 2 CPUs on a 64-core node runs 2 workers.
 */
export function workerCount(setting: string, sources: CpuSources = {}): number {
  if (setting !== "auto") return Number(setting);
  const { parallelism = availableParallelism, read = (path: string) => readFileSync(path, "utf8") } = sources;
  const cpus = parallelism();
  const quota = cpuQuotaCpus(read);
  return quota === undefined ? cpus : Math.max(1, Math.min(cpus, quota));
}

/**
 * The CPUs the cgroup v2 quota of this process allows (`cpu.max`: "<quota> <period>" in µs, or
 * "max <period>" for no limit), rounded up: the least of its own cgroup's and of each cgroup
 * above it (a limit anywhere up the tree applies); undefined when none is limited or there is no
 * cgroup v2 (cgroup v1, not Linux).
 */
export function cpuQuotaCpus(read: (path: string) => string): number | undefined {
  let least: number | undefined;
  for (const dir of cgroupDirs(read)) {
    let text: string;
    try {
      text = read(`${dir}/cpu.max`);
    } catch {
      continue;
    }
    const cpus = parseCpuMax(text);
    if (cpus !== undefined) least = Math.min(least ?? cpus, cpus);
  }
  return least;
}

/**
 * The CPUs a cgroup v2 `cpu.max` allows, rounded up (at least 1); undefined for "max" (no
 * limit) or for a text that is not "<quota> <period>".
 */
export function parseCpuMax(text: string): number | undefined {
  const match = /^(max|\d+)(?:\s+(\d+))?\s*$/.exec(text.trim());
  if (match === null || match[1] === "max") return undefined;
  const quota = Number(match[1]);
  const period = Number(match[2] ?? 100_000);
  if (quota <= 0 || period <= 0) return undefined;
  return Math.max(1, Math.ceil(quota / period));
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/**
 * This process's cgroup v2 directory and those above it, up to the mount's root: its path is the
 * "0::" line of /proc/self/cgroup (in a container, "/", the container's own namespace).
 */
function cgroupDirs(read: (path: string) => string): string[] {
  let path = "/";
  try {
    const line = read("/proc/self/cgroup").split("\n").find((l) => l.startsWith("0::"));
    if (line === undefined) return [];
    path = line.slice(3).trim() || "/";
  } catch {
    return [CGROUP_ROOT];
  }
  const parts = path.split("/").filter((part) => part !== "" && part !== "..");
  const dirs: string[] = [];
  for (let n = parts.length; n >= 0; n--) dirs.push([CGROUP_ROOT, ...parts.slice(0, n)].join("/"));
  return dirs;
}

/** Whether this process is the primary of --workers (and should run runPrimary, not a gateway). */
export function isPrimaryOf(config: Config): boolean {
  return cluster.isPrimary && workerCount(config.workers) > 1;
}

/** A worker's request for the aggregated metrics, and the primary's answer (same kind and id). */
interface MetricsMessage {
  readonly kind: "norsk-gateway:metrics";
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

function isMetricsMessage(message: unknown): message is MetricsMessage {
  return kindOf(message) === "norsk-gateway:metrics";
}

/** A worker's word that it is listening: from then on, its death is a crash, not a failed start. */
const SERVING = "norsk-gateway:serving";

function kindOf(message: unknown): unknown {
  return typeof message === "object" && message !== null ? (message as { kind?: unknown }).kind : undefined;
}

/** How long after a serving worker died its replacement is forked. */
const RESTART_DELAY_MS = 1_000;

/** What the primary prints, one JSON line each, as the workers' pino lines are. */
export type PrimaryLog = (level: "info" | "warn" | "error", fields: Record<string, unknown>, msg: string) => void;

export interface PrimaryOptions {
  /** The primary's log (JSON lines). Required. */
  readonly log: PrimaryLog;
  /** Prints the one line that says why the command stops, as a gateway that fails to start does. Required. */
  readonly fatal: (message: string) => void;
  /** Starts the embedded Manager; called only when there is no --manager. Required. */
  readonly startEmbedded: () => Promise<{ address: string; close(): Promise<void> }>;
}

export interface Primary {
  /**
   * Resolves with the exit code once every worker has exited: after a signal, 0 when each
   * drained cleanly (exit code 0), else 1; after a worker failed to start, that worker's code.
   */
  readonly done: Promise<number>;
}

/**
 * Forks the workers (after starting the embedded Manager when no --manager is given), answers
 * their requests for the aggregated metrics, replaces a serving worker that dies, stops them
 * all when one fails to start, and on SIGTERM or SIGINT passes the signal on and waits for
 * every worker.
 */
export async function runPrimary(config: Config, options: PrimaryOptions): Promise<Primary> {
  const { log, fatal } = options;
  const embedded = config.manager === undefined ? await options.startEmbedded() : undefined;
  const count = workerCount(config.workers);
  const env = embedded === undefined ? {} : { MANAGER_ADDRESS: embedded.address };
  const aggregator = new AggregatorRegistry();
  /** The ids of the workers that said they are serving. */
  const serving = new Set<number>();
  let stopping = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => { resolveDone = resolve; });
  /** Stops every worker with `signal`; the command's exit code is `failed` when given. */
  const stop = (signal: NodeJS.Signals, failed?: number): void => {
    if (stopping) return;
    stopping = true;
    log("info", { signal }, "shutting down the workers");
    void drain(Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined), signal).then(async (codes) => {
      await embedded?.close();
      resolveDone(failed ?? (codes.every((code) => code === 0) ? 0 : 1));
    });
  };
  const fork = (): void => {
    if (!stopping) cluster.fork(env);
  };
  cluster.on("message", (worker, message: unknown) => {
    if (kindOf(message) === SERVING) {
      serving.add(worker.id);
      return;
    }
    if (!isMetricsMessage(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ kind: message.kind, id: message.id, text } satisfies MetricsMessage),
      (error: unknown) => worker.send({ kind: message.kind, id: message.id, error: String(error) } satisfies MetricsMessage),
    );
  });
  cluster.on("exit", (worker, code, signal) => {
    const wasServing = serving.delete(worker.id);
    if (stopping) return;
    if (wasServing) {
      log("error", { pid: worker.process.pid, code, signal }, "a worker died; starting another");
      setTimeout(fork, RESTART_DELAY_MS).unref();
      return;
    }
    // A code of 0 or none (killed by a signal) would not say the start failed.
    const failed = code > 0 ? code : 1;
    const how = typeof signal === "string" && signal !== "" ? `signal ${signal}` : `exit code ${String(code)}`;
    fatal(`a worker failed to start (${how}); stopping the other workers`);
    stop("SIGTERM", failed);
  });
  for (let i = 0; i < count; i += 1) fork();
  log("info", { workers: count, manager: config.manager ?? "embedded" }, `norsk-manager-gateway primary: ${String(count)} workers`);
  process.once("SIGTERM", () => { stop("SIGTERM"); });
  process.once("SIGINT", () => { stop("SIGINT"); });
  return { done };
}

/** In a worker: tells the primary that this gateway is listening. Does nothing outside a cluster. */
export function reportServing(): void {
  if (cluster.isWorker) process.send?.({ kind: SERVING });
}

/** Passes `signal` to each worker and resolves with their exit codes once all have exited. */
function drain(workers: readonly Worker[], signal: NodeJS.Signals): Promise<(number | null)[]> {
  return Promise.all(
    workers.map(
      (worker) =>
        new Promise<number | null>((resolve) => {
          if (worker.isDead()) {
            resolve(worker.process.exitCode ?? null);
            return;
          }
          worker.once("exit", (code) => { resolve(code); });
          worker.process.kill(signal);
        }),
    ),
  );
}

/**
 * In a worker: lets the primary collect `metrics` (prom-client answers its requests), and takes
 * /metrics from the primary's aggregate of all workers. Does nothing outside a cluster.
 */
export function shareMetrics(metrics: GatewayMetrics): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries([metrics.registry]);
  // Constructed for its side effect: in a worker, it answers the primary's requests.
  new AggregatorRegistry();
  const pending = new Map<number, (message: MetricsMessage) => void>();
  let next = 0;
  process.on("message", (message: unknown) => {
    if (isMetricsMessage(message)) pending.get(message.id)?.(message);
  });
  metrics.exposeFrom(
    () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        pending.set(id, (answer) => {
          pending.delete(id);
          if (answer.text === undefined) reject(new Error(answer.error ?? "no metrics"));
          else resolve(answer.text);
        });
        process.send?.({ kind: "norsk-gateway:metrics", id } satisfies MetricsMessage);
      }),
  );
}
