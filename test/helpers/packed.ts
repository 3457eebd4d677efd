// The packed artifact, as an operator installs it: `npm pack` of this checkout, and
// `npm install` of that tarball into a folder of its own. Packages come from npm's cache, filled
// by the `npm ci` that installed this checkout.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

export interface Packed {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths packed, relative to the package root. */
  readonly files: readonly string[];
}

/**
 * `npm pack` into `folder`. dist/ is built by the test run's global setup; --ignore-scripts
 * keeps `prepare` from rebuilding it under the other tests' feet.
 */
export async function pack(folder: string): Promise<Packed> {
  const { stdout } = await run(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", folder]);
  const [result] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(folder, result.filename), files: result.files.map((file) => file.path) };
}

/**
 * Installs `tarball` into `folder` (given a package.json of its own) with `npm install` and
 * `flags` (e.g. --omit=dev --omit=optional), from the cache where it can.
 */
export async function installPacked(folder: string, tarball: string, flags: readonly string[]): Promise<void> {
  await writeFile(join(folder, "package.json"), JSON.stringify({ name: "operator", private: true }));
  await run(NPM, ["install", ...flags, "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: folder });
}
