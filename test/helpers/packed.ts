// The packed artifacts, as an operator installs them: `npm pack` of this checkout's packages,
// and `npm install` of those tarballs into a folder of its own. Each tarball carries the
// contract it imports (bundleDependencies; docs/operations/deploying.md, "Installing
// and running"). Packages come from npm's cache, filled by the `npm ci` that installed this checkout.
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { delimiter, join, relative } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The packages this checkout packs: the gateway (the root package), the reference Manager and the client. */
export type PackageName = "norsk-manager-gateway" | "norsk-reference-manager" | "norsk-manager-client";

export interface Packed {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths packed, relative to the package root. */
  readonly files: readonly string[];
  /** The dependencies packed in it (under node_modules/). */
  readonly bundled: readonly string[];
}

/**
 * `npm pack` of one package into `folder`. dist/ is built by the test run's global setup, which
 * also links the reference Manager's bundled contract where npm packs it from; --ignore-scripts
 * keeps `prepare` from rebuilding dist/ under the other tests' feet.
 */
export async function pack(folder: string, name: PackageName = "norsk-manager-gateway"): Promise<Packed> {
  const workspace = name === "norsk-manager-gateway" ? [] : ["--workspace", name];
  const { stdout } = await run(NPM, ["pack", ...workspace, "--ignore-scripts", "--json", "--pack-destination", folder]);
  const [result] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[]; bundled: string[] }];
  return { tarball: join(folder, result.filename), files: result.files.map((file) => file.path), bundled: result.bundled };
}

export interface InstallOptions {
  /** The environment npm runs in. Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Installs `tarballs` into `folder` (given a package.json of its own) with one `npm install`
 * and `flags` (e.g. --omit=dev), from the cache where it can.
 */
export async function installPacked(folder: string, tarballs: readonly string[], flags: readonly string[], options: InstallOptions = {}): Promise<void> {
  await writeFile(join(folder, "package.json"), JSON.stringify({ name: "operator", private: true }));
  await run(NPM, ["install", ...flags, "--prefer-offline", "--no-audit", "--no-fund", ...tarballs], { cwd: folder, env: options.env ?? process.env });
}

/**
 * An environment in which no native module can be built: PATH holds only node, npm and sh, so
 * that node-gyp (the copy npm ships and runs for an install script) finds no python, make or
 * compiler and fails. `bin` is made for it.
 */
export async function withoutCompiler(bin: string): Promise<NodeJS.ProcessEnv> {
  await mkdir(bin, { recursive: true });
  await symlink(process.execPath, join(bin, "node"));
  await symlink(onPath(NPM), join(bin, NPM));
  await symlink("/bin/sh", join(bin, "sh"));
  // Nor any of the variables through which node-gyp would be told where one is.
  const { PYTHON: _python, npm_config_python: _npmPython, CC: _cc, CXX: _cxx, ...env } = process.env;
  return { ...env, PATH: bin };
}

/** The real path of `program` found on this process's PATH. */
function onPath(program: string): string {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, program);
    if (folder !== "" && existsSync(candidate)) return realpathSync(candidate);
  }
  throw new Error(`${program} is not on PATH`);
}

/** The files under `folder` whose paths relative to it end with `suffix`, as those paths. */
export async function filesEndingWith(folder: string, suffix: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => relative(folder, join(entry.parentPath, entry.name)));
  return files.filter((path) => path.endsWith(suffix)).sort();
}

/** Where package `name` is installed under `folder`'s node_modules: each copy's folder, relative to it. */
export async function copiesOf(folder: string, name: string): Promise<string[]> {
  const manifests = await filesEndingWith(join(folder, "node_modules"), `${name}/package.json`);
  return manifests.filter((path) => path === `${name}/package.json` || path.endsWith(`/node_modules/${name}/package.json`)).map((path) => path.slice(0, -"/package.json".length));
}
