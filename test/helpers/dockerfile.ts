// Reads the Dockerfile, so that tests follow what it says: its stages, and the configuration an
// image built from a target gets (ENV, USER, EXPOSE, ENTRYPOINT, CMD, HEALTHCHECK), inherited
// from the stages it is built FROM as a builder would. Only the forms this project's Dockerfile
// uses are understood; anything else is an error rather than a guess.
import { readFileSync } from "node:fs";

export interface Instruction {
  readonly keyword: string;
  /** Everything after the keyword, continuation lines joined with a space. */
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  /** The image or stage it is built FROM, build arguments replaced by their defaults. */
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

export interface Healthcheck {
  readonly options: Readonly<Record<string, string>>;
  /** The exec form's argv. */
  readonly command: readonly string[];
}

/** What an image built from a target runs with. */
export interface ImageConfig {
  readonly env: Readonly<Record<string, string>>;
  readonly user: string | undefined;
  readonly workdir: string | undefined;
  readonly expose: readonly string[];
  readonly volumes: readonly string[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly healthcheck: Healthcheck | undefined;
  /** The base image at the bottom of the FROM chain. */
  readonly base: string;
}

export function readDockerfile(path = "Dockerfile"): Stage[] {
  return parseDockerfile(readFileSync(path, "utf8"));
}

export function parseDockerfile(text: string): Stage[] {
  const args: Record<string, string> = {};
  const stages: { name: string; from: string; instructions: Instruction[] }[] = [];
  for (const instruction of instructions(text)) {
    if (instruction.keyword === "FROM") {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (match === null) throw new Error(`FROM not understood: ${instruction.args}`);
      const from = (match[1] ?? "").replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? "");
      stages.push({ name: match[2] ?? String(stages.length), from, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG") throw new Error(`only ARG may come before FROM: ${instruction.keyword}`);
      const [name, value] = instruction.args.split("=", 2);
      if (name !== undefined) args[name] = value ?? "";
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** The logical lines: comments dropped, continuations (a trailing backslash) joined. */
function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const whole = (pending + line.trim()).trim();
    pending = "";
    if (whole === "") continue;
    const space = whole.search(/\s/);
    result.push({ keyword: whole.slice(0, space).toUpperCase(), args: whole.slice(space + 1).trim() });
  }
  return result;
}

export function stage(stages: readonly Stage[], name: string): Stage {
  const found = stages.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no stage ${name}`);
  return found;
}

/** The configuration of the image built with --target `name`. */
export function imageConfig(stages: readonly Stage[], name: string): ImageConfig {
  const chain: Stage[] = [];
  let current: Stage | undefined = stage(stages, name);
  while (current !== undefined) {
    chain.unshift(current);
    const from: string = current.from;
    current = stages.find((s) => s.name === from);
  }
  const config = { env: {} as Record<string, string>, user: undefined as string | undefined, workdir: undefined as string | undefined, expose: [] as string[], volumes: [] as string[], entrypoint: [] as string[], cmd: [] as string[], healthcheck: undefined as Healthcheck | undefined };
  for (const { keyword, args } of chain.flatMap((s) => s.instructions)) {
    if (keyword === "ENV") Object.assign(config.env, parseEnv(args));
    else if (keyword === "USER") config.user = args;
    else if (keyword === "WORKDIR") config.workdir = args;
    else if (keyword === "EXPOSE") config.expose.push(...args.split(/\s+/));
    else if (keyword === "VOLUME") config.volumes.push(...jsonArray(args));
    else if (keyword === "ENTRYPOINT") [config.entrypoint, config.cmd] = [jsonArray(args), []];
    else if (keyword === "CMD") config.cmd = jsonArray(args);
    else if (keyword === "HEALTHCHECK") config.healthcheck = parseHealthcheck(args);
  }
  return { ...config, base: chain[0]?.from ?? "" };
}

/** `KEY=value KEY2=value2` (no quotes, no spaces in values: all this Dockerfile writes). */
function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of args.split(/\s+/)) {
    const at = pair.indexOf("=");
    if (at <= 0 || /["']/.test(pair)) throw new Error(`ENV not understood: ${args}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

function parseHealthcheck(args: string): Healthcheck {
  const match = /^((?:--[\w-]+=\S+\s+)*)CMD\s+(\[.*\])$/.exec(args);
  if (match === null) throw new Error(`HEALTHCHECK not understood (exec form expected): ${args}`);
  const options = Object.fromEntries((match[1] ?? "").trim().split(/\s+/).filter((o) => o !== "").map((o) => o.slice(2).split("=", 2) as [string, string]));
  return { options, command: jsonArray(match[2] ?? "") };
}

function jsonArray(args: string): string[] {
  const value = JSON.parse(args) as unknown;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw new Error(`not an exec-form array: ${args}`);
  return value;
}

/** Docker's duration syntax as HEALTHCHECK takes it (10s, 1m30s), in ms. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join("") !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ""] ?? 0), 0);
}
