// Starts the built gateway command (or another server command) as a child process and reads
// its start-up line.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface StartedCommand {
  readonly url: string;
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface CommandOptions {
  /** The script node runs. Default: the build in this checkout, dist/src/main.js. */
  readonly entry?: string;
  /** Added to this process's environment. Default: nothing added. */
  readonly env?: NodeJS.ProcessEnv;
  /** The embedded Manager's data directory, removed at stop. Default: a new empty one. */
  readonly dataDir?: string;
  /** Options of node itself, before the script (e.g. --max-old-space-size). Default: none. */
  readonly nodeArgs?: readonly string[];
}

/**
 * Starts the gateway command with `node`, on port 0 with its own data directory, and resolves
 * once it prints its listening line.
 */
export async function startCommand(args: readonly string[] = [], options: CommandOptions = {}): Promise<StartedCommand> {
  const { entry = "dist/src/main.js", env = {}, nodeArgs = [] } = options;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "gateway-e2e-")));
  const argv = [process.execPath, ...nodeArgs, entry, "--port", "0", "--data-dir", dataDir, ...args];
  const started = await startProcess(argv, { env: { ...process.env, ...env } });
  return { ...started, stop: async () => {
    const code = await started.stop();
    await rm(dataDir, { recursive: true, force: true });
    return code;
  } };
}

export interface ProcessOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** The start-up line; its first group is the command's `url`. Default: `listening on http(s)://...`. */
  readonly listening?: RegExp;
}

/**
 * Runs `argv` (with `env` and `cwd` when given, else this process's) and resolves once it prints
 * its start-up line.
 */
export async function startProcess(argv: readonly string[], options: ProcessOptions = {}): Promise<StartedCommand> {
  const [file = "", ...args] = argv;
  const { listening = /listening on (https?:\/\/[^\s]+)/, ...spawnOptions } = options;
  const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], ...spawnOptions });
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`no start-up line:\n${lines.join("\n")}`)); }, 20_000);
    const onLine = (line: string): void => {
      lines.push(line);
      const match = listening.exec(line);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    createInterface({ input: child.stdout }).on("line", onLine);
    createInterface({ input: child.stderr }).on("line", onLine);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)} before listening:\n${lines.join("\n")}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => { resolve(code); }));
  return {
    url,
    child,
    lines,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
