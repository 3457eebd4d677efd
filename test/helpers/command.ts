// Starts the built gateway command as a child process on port 0 and reads its start-up line.
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
  /** The embedded Manager's data directory, removed at stop. Default: a new empty one. */
  readonly dataDir?: string;
  /** Options of node itself, before the script (e.g. --max-old-space-size). Default: none. */
  readonly nodeArgs?: readonly string[];
}

export async function startCommand(args: readonly string[] = [], options: CommandOptions = {}): Promise<StartedCommand> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "gateway-e2e-")));
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "dist/src/main.js", "--port", "0", "--data-dir", dataDir, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`no start-up line:\n${lines.join("\n")}`)); }, 20_000);
    const onLine = (line: string): void => {
      lines.push(line);
      const match = /listening on (http:\/\/[^\s]+)/.exec(line);
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
      const code = await exited;
      await rm(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
