// `npm run test:mutation [-- group ...]` (or `-- --report-only`, no run): Stryker over the core modules, one run per group of
// test/mutation/groups.json (each group's modules mutated, only its tests run: see
// stryker.config.mjs), then one summary of them all. Each group's own reports (html, json,
// clear text on the console) are in reports/mutation/<group>/; the summary, a merged
// mutation.json and an index.html linking the groups' reports are in reports/mutation/.
// Exits 1 when a run fails, or when a module or the total scores under MINIMUM_SCORE.
// Equivalent mutants (survivors no test can kill) are listed in test/mutation/EQUIVALENT.md;
// every run rewrites test/mutation/SCORES.md (scripts/mutation-scores.ts) from the groups'
// latest reports, the earlier figures in test/mutation/before.json and EQUIVALENT.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Before, type Row, type Tally, emptyTally, equivalentCounts, pct, score, scoresMarkdown, sumTallies } from "./mutation-scores.js";

const ROOT = resolve(import.meta.dirname, "..");
const REPORTS = resolve(ROOT, "reports/mutation");
const EQUIVALENT = resolve(ROOT, "test/mutation/EQUIVALENT.md");
/** Where a reader of the summary goes next. */
const POINTERS = [
  "equivalent mutants (survivors no test can tell from the original), each with its reason: test/mutation/EQUIVALENT.md",
  "scores per module, before and after: test/mutation/SCORES.md; each group's report: reports/mutation/<group>/mutation.html",
].join("\n");
/** Stryker's mutation score, in percent, that every module and the total must reach. */
export const MINIMUM_SCORE = 85;

interface Group {
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
}

/** The parts of Stryker's JSON report (mutation-testing-report-schema) read here. */
interface Report {
  readonly schemaVersion: string;
  readonly thresholds: { readonly high: number; readonly low: number };
  readonly files: Record<string, { readonly language: string; readonly source: string; readonly mutants: readonly { readonly status: string }[] }>;
}

export function tally(statuses: readonly string[], into: Tally = emptyTally()): Tally {
  for (const status of statuses) {
    if (status === "Killed") into.killed++;
    else if (status === "Timeout") into.timeout++;
    else if (status === "Survived") into.survived++;
    else if (status === "NoCoverage") into.noCoverage++;
    else into.excluded++;
  }
  return into;
}

function readGroups(): Record<string, Group> {
  return JSON.parse(readFileSync(resolve(ROOT, "test/mutation/groups.json"), "utf8")) as Record<string, Group>;
}

/** Runs Stryker for one group; its wall time in seconds. */
function runGroup(name: string): number {
  const started = performance.now();
  const result = spawnSync(resolve(ROOT, "node_modules/.bin/stryker"), ["run"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, MUTATION_GROUP: name },
  });
  if (result.status !== 0) throw new Error(`stryker run for group ${name} failed (exit ${String(result.status ?? result.signal)})`);
  return (performance.now() - started) / 1000;
}

function rowsOf(reports: ReadonlyMap<string, Report>, measured: ReadonlyMap<string, Date>): Row[] {
  return [...reports].flatMap(([group, report]) =>
    Object.entries(report.files).map(([file, { mutants }]) => ({ group, file, tally: tally(mutants.map((m) => m.status)), measured: measured.get(group) })),
  );
}

/** The summary as a plain-text table: each module, each group, the total. */
export function summaryTable(rows: readonly Row[]): string {
  const lines = ["group    module                              score  killed timeout survived no-cov excluded"];
  const line = (group: string, name: string, t: Tally): string =>
    `${group.padEnd(8)} ${name.padEnd(35)} ${pct(score(t)).padStart(6)} ${String(t.killed).padStart(7)} ${String(t.timeout).padStart(7)} ${String(t.survived).padStart(8)} ${String(t.noCoverage).padStart(6)} ${String(t.excluded).padStart(8)}`;
  for (const group of new Set(rows.map((r) => r.group))) {
    const members = rows.filter((r) => r.group === group);
    for (const row of members) lines.push(line(group, row.file, row.tally));
    lines.push(line(group, "(group)", members.reduce((sum, row) => sumTallies(sum, row.tally), emptyTally())));
  }
  lines.push(line("total", "", rows.reduce((sum, row) => sumTallies(sum, row.tally), emptyTally())));
  return lines.join("\n");
}

/** Modules (and the total, as "total") under the minimum score. */
export function belowMinimum(rows: readonly Row[]): string[] {
  const total = rows.reduce((sum, row) => sumTallies(sum, row.tally), emptyTally());
  const low = rows.filter((r) => score(r.tally) < MINIMUM_SCORE).map((r) => r.file);
  return score(total) < MINIMUM_SCORE ? [...low, "total"] : low;
}

function indexHtml(groups: readonly string[], table: string): string {
  const links = groups.map((g) => `<li><a href="${g}/mutation.html">${g}</a></li>`).join("\n");
  const escaped = table.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Mutation testing</title></head><body>
<h1>Mutation testing of the core modules</h1>
<p>Each group's Stryker report. Equivalent mutants, each with its reason: test/mutation/EQUIVALENT.md; scores per module, before and after: test/mutation/SCORES.md.</p>
<ul>
${links}
</ul>
<pre>${escaped}</pre>
</body></html>\n`;
}

/** Writes the summary, the merged report and the index of every group that has a report. */
function summarize(groupNames: readonly string[]): Row[] {
  const reports = new Map<string, Report>();
  const measured = new Map<string, Date>();
  for (const name of groupNames) {
    const file = resolve(REPORTS, name, "mutation.json");
    if (!existsSync(file)) continue;
    reports.set(name, JSON.parse(readFileSync(file, "utf8")) as Report);
    measured.set(name, statSync(file).mtime);
  }
  const rows = rowsOf(reports, measured);
  const missing = groupNames.filter((name) => !reports.has(name));
  const table = `${summaryTable(rows)}${missing.length > 0 ? `\ngroups with no report yet (not in the total): ${missing.join(", ")}` : ""}`;
  const first = [...reports.values()][0];
  const merged = { schemaVersion: first?.schemaVersion ?? "1", thresholds: first?.thresholds ?? {}, files: Object.assign({}, ...[...reports.values()].map((r) => r.files)) as Report["files"] };
  mkdirSync(REPORTS, { recursive: true });
  writeFileSync(resolve(REPORTS, "summary.txt"), `${table}\n\n${POINTERS}\n`);
  writeFileSync(resolve(REPORTS, "mutation.json"), JSON.stringify(merged));
  writeFileSync(resolve(REPORTS, "index.html"), indexHtml([...reports.keys()], table));
  const before = JSON.parse(readFileSync(resolve(ROOT, "test/mutation/before.json"), "utf8")) as Before;
  writeFileSync(resolve(ROOT, "test/mutation/SCORES.md"), scoresMarkdown(rows, before, equivalentCounts(readFileSync(EQUIVALENT, "utf8")), missing));
  console.log(`\n${table}\n`);
  return rows;
}

/** `-- --report-only`: no Stryker run, only the summary and SCORES.md from the reports there are. */
const REPORT_ONLY = "--report-only";

function main(argv: readonly string[]): number {
  const groups = readGroups();
  const reportOnly = argv.includes(REPORT_ONLY);
  const args = argv.filter((a) => a !== REPORT_ONLY);
  const unknown = args.filter((a) => !Object.hasOwn(groups, a));
  if (unknown.length > 0) {
    console.error(`not a group of test/mutation/groups.json: ${unknown.join(", ")} (groups: ${Object.keys(groups).join(", ")})`);
    return 2;
  }
  const chosen = reportOnly ? [] : args.length > 0 ? args : Object.keys(groups);
  const times = chosen.map((name) => `${name} ${runGroup(name).toFixed(0)} s`);
  const rows = summarize(Object.keys(groups));
  if (times.length > 0) console.log(`wall time: ${times.join(", ")}`);
  console.log(`${POINTERS}\nsummary: reports/mutation/summary.txt, reports/mutation/index.html`);
  const low = belowMinimum(rows);
  if (low.length > 0) {
    console.error(`under ${MINIMUM_SCORE}%: ${low.join(", ")}`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
