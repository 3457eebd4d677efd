// The version the reference Manager reports in CreateStatusChannel's hello: this package's
// version from its package.json, which is one folder above this file both in src/ (tsx) and
// in dist/ (node after `npm run build`).
import { readFileSync } from "node:fs";

export interface PackageVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly text: string;
}

let cached: PackageVersion | undefined;

export function packageVersion(): PackageVersion {
  cached ??= parseVersion(readVersion());
  return cached;
}

function readVersion(): string {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown };
  return typeof version === "string" ? version : "0.0.0";
}

/** "1.2.3-rc.1" → 1, 2, 3; missing or non-numeric parts are 0. */
export function parseVersion(text: string): PackageVersion {
  const [major, minor, patch] = text.split(/[.+-]/, 3).map((part) => {
    const n = Number.parseInt(part, 10);
    return Number.isFinite(n) ? n : 0;
  });
  return { major: major ?? 0, minor: minor ?? 0, patch: patch ?? 0, text };
}
