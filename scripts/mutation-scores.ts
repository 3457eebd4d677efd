// test/mutation/SCORES.md, written by `npm run test:mutation` (scripts/mutation.ts) after every
// run: one row per mutated module with its score before the survivor tests (the figures kept
// in test/mutation/before.json, measured once), its score now (each group's latest Stryker
// report in reports/mutation/<group>/mutation.json), the counts behind it, and how many of its
// survivors test/mutation/EQUIVALENT.md lists as equivalent.

/** Counts of one module (or a sum of them), by Stryker's statuses. */
export interface Tally {
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** CompileError, RuntimeError and Ignored: not part of the score, as in Stryker's own. */
  excluded: number;
}

export const emptyTally = (): Tally => ({ killed: 0, timeout: 0, survived: 0, noCoverage: 0, excluded: 0 });

/** Stryker's mutation score: detected (killed, timed out) over valid mutants; NaN when none. */
export function score(t: Tally): number {
  const detected = t.killed + t.timeout;
  return (100 * detected) / (detected + t.survived + t.noCoverage);
}

/**
 * The score with the mutants EQUIVALENT.md lists set aside: they are valid mutants to Stryker,
 * but no test can detect them, so they count neither for nor against.
 */
export function scoreWithoutEquivalents(t: Tally, equivalent: number): number {
  const detected = t.killed + t.timeout;
  return (100 * detected) / (detected + t.survived + t.noCoverage - equivalent);
}

export function sumTallies(a: Tally, b: Tally): Tally {
  return {
    killed: a.killed + b.killed,
    timeout: a.timeout + b.timeout,
    survived: a.survived + b.survived,
    noCoverage: a.noCoverage + b.noCoverage,
    excluded: a.excluded + b.excluded,
  };
}

/** One module's line: its group, its path, its counts, and when its group's report was made. */
export interface Row {
  readonly group: string;
  readonly file: string;
  readonly tally: Tally;
  readonly measured?: Date | undefined;
}

/** test/mutation/before.json: how the earlier figures were made, and each module's score then. */
export interface Before {
  readonly commit: string;
  readonly note: string;
  /** A score in percent, or why there is none (e.g. the run was skipped). */
  readonly modules: Record<string, number | string>;
}

/**
 * Equivalent mutants per module, from EQUIVALENT.md's table rows, which begin with the place
 * of the mutant in backquotes: "| `src/sse/stream-body.ts:65` | ...".
 */
export function equivalentCounts(markdown: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of markdown.matchAll(/^\|\s*`(src\/[^`:]+):\d+(?::\d+)?`/gm)) {
    const file = match[1] ?? "";
    counts.set(file, (counts.get(file) ?? 0) + 1);
  }
  return counts;
}

export const pct = (value: number): string => (Number.isNaN(value) ? "n/a" : value.toFixed(2));

function beforeCell(before: Before, file: string): string {
  const value = before.modules[file];
  if (value === undefined) return "not measured";
  return typeof value === "number" ? pct(value) : value;
}

const day = (date: Date | undefined): string => (date === undefined ? "" : date.toISOString().slice(0, 16).replace("T", " "));

/** SCORES.md: the table of every module, then the total, then how each figure is made. */
export function scoresMarkdown(rows: readonly Row[], before: Before, equivalents: ReadonlyMap<string, number>, missing: readonly string[] = []): string {
  const header = [
    "| group | module | before | after | after, equivalents aside | killed | timed out | survived | no coverage | equivalent | report of (UTC) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  const cells = (t: Tally, equivalent: number): string =>
    `${pct(score(t))} | ${pct(scoreWithoutEquivalents(t, equivalent))} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${equivalent}`;
  const lines = rows.map((row) => {
    const equivalent = equivalents.get(row.file) ?? 0;
    return `| ${row.group} | \`${row.file}\` | ${beforeCell(before, row.file)} | ${cells(row.tally, equivalent)} | ${day(row.measured)} |`;
  });
  const total = rows.reduce((sum, row) => sumTallies(sum, row.tally), emptyTally());
  const totalEquivalent = rows.reduce((sum, row) => sum + (equivalents.get(row.file) ?? 0), 0);
  lines.push(`| **total** | | | ${cells(total, totalEquivalent)} | |`);
  return [
    "# Mutation scores per module",
    "",
    "Written by `npm run test:mutation` (scripts/mutation.ts, scripts/mutation-scores.ts) after each run;",
    "do not edit it by hand. **after** is Stryker's score (killed and timed out over all valid",
    "mutants) in each group's latest report (`reports/mutation/<group>/mutation.json`, made at the",
    "time in the last column); **after, equivalents aside** leaves out the survivors that",
    "[EQUIVALENT.md](EQUIVALENT.md) lists as equivalent (column **equivalent**). The run fails when",
    "a module or the total scores **after** under 85%.",
    "",
    `**before** is the score of the same module, with the same groups, at commit ${before.commit}: ${before.note}`,
    "",
    ...header,
    ...lines,
    "",
    ...(missing.length > 0 ? [`Groups with no report yet (not in the table or the total): ${missing.join(", ")}.`, ""] : []),
  ].join("\n");
}
