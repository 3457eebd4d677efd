// The version the reference Manager reports in CreateStatusChannel's hello: this package's
// version from its package.json, found by walking up from this file, so that it works both
// from src/ (tsx) and from dist/ (node after `npm run build`).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface PackageVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly text: string;
}

const PACKAGE_NAME = "norsk-reference-manager";

let cached: PackageVersion | undefined;

export function packageVersion(): PackageVersion {
  cached ??= readVersion();
  return cached;
}

function readVersion(): PackageVersion {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const found = versionIn(join(dir, "package.json"));
    if (found !== undefined) return parseVersion(found);
    const parent = dirname(dir);
    if (parent === dir) return parseVersion("0.0.0");
    dir = parent;
  }
}

function versionIn(file: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { name, version } = parsed as { name?: unknown; version?: unknown };
  return name === PACKAGE_NAME && typeof version === "string" ? version : undefined;
}

/** "1.2.3-rc.1" → 1, 2, 3; missing or non-numeric parts are 0. */
export function parseVersion(text: string): PackageVersion {
  const [major, minor, patch] = text.split(/[.+-]/, 3).map((part) => {
    const n = Number.parseInt(part, 10);
    return Number.isFinite(n) ? n : 0;
  });
  return { major: major ?? 0, minor: minor ?? 0, patch: patch ?? 0, text };
}
