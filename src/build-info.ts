// What is running: the gateway's version (its package.json), the commit it was built from, and
// the Node version. The commit is what scripts/build.mjs wrote beside the build
// (dist/build-info.json) when it ran in a git checkout; sources run by tsx, or a build made
// outside git (the container image's), have none, and say so by leaving it out.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface BuildInfo {
  /** The package's version, as package.json says. */
  readonly version: string;
  /** The full commit hash the build was made from; undefined when unknown. */
  readonly commit: string | undefined;
  /** process.version, "v20.19.0". */
  readonly node: string;
}

const PACKAGE_NAME = "norsk-manager-gateway";

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  cached ??= { version: packageVersion(), commit: builtCommit(), node: process.version };
  return cached;
}

/** "0.1.0 (commit 1a2b3c4d5e6f, Node v20.19.0)", or without the commit when there is none. */
export function describeBuild(info: BuildInfo = buildInfo()): string {
  const commit = info.commit === undefined ? "" : `commit ${info.commit.slice(0, 12)}, `;
  return `${info.version} (${commit}Node ${info.node})`;
}

/** The version in the package.json of this package, found from src/ and from dist/src/. */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && pkg.version !== undefined) return pkg.version;
    } catch {
      // No package.json here: look further up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json of ${PACKAGE_NAME} not found`);
    dir = parent;
  }
}

/** The commit of dist/build-info.json, beside the build (this file is dist/src/build-info.js). */
function builtCommit(): string | undefined {
  try {
    const written = JSON.parse(readFileSync(new URL("../build-info.json", import.meta.url), "utf8")) as { commit?: unknown };
    return typeof written.commit === "string" && /^[0-9a-f]{40}$/.test(written.commit) ? written.commit : undefined;
  } catch {
    return undefined;
  }
}
