// The packed artifacts, as an operator installs them: `npm pack` of this checkout's packages,
// and `npm install` of those tarballs into a folder of its own. Packages come from npm's cache,
// filled by the `npm ci` that installed this checkout.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The gateway (the root package), and the workspace packages it ships with or beside. */
export type PackageName = "norsk-manager-gateway" | "norsk-manager-contract" | "norsk-reference-manager";

export interface Packed {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths packed, relative to the package root. */
  readonly files: readonly string[];
}

/**
 * `npm pack` of one package into `folder`. dist/ is built by the test run's global setup;
 * --ignore-scripts keeps `prepare` from rebuilding it under the other tests' feet.
 */
export async function pack(folder: string, name: PackageName = "norsk-manager-gateway"): Promise<Packed> {
  const workspace = name === "norsk-manager-gateway" ? [] : ["--workspace", name];
  const { stdout } = await run(NPM, ["pack", ...workspace, "--ignore-scripts", "--json", "--pack-destination", folder]);
  const [result] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(folder, result.filename), files: result.files.map((file) => file.path) };
}

/**
 * Installs `tarballs` into `folder` (given a package.json of its own) with one `npm install`
 * and `flags` (e.g. --omit=dev), from the cache where it can.
 */
export async function installPacked(folder: string, tarballs: readonly string[], flags: readonly string[]): Promise<void> {
  await writeFile(join(folder, "package.json"), JSON.stringify({ name: "operator", private: true }));
  await run(NPM, ["install", ...flags, "--prefer-offline", "--no-audit", "--no-fund", ...tarballs], { cwd: folder });
}
