// Reads Prometheus's text exposition format into samples, for tests that check exact values.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (match === null) throw new Error(`not an exposition line: ${line}`);
    const [, name = "", labelText = "", value = ""] = match;
    const labels: Record<string, string> = {};
    for (const [, key = "", text] of labelText.matchAll(LABEL)) labels[key] = (text ?? "").replace(/\\(.)/g, "$1");
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`; undefined when none has them. */
export function valueOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${String(found.length)} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The distinct label sets of `name`'s samples. */
export function seriesOf(samples: readonly Sample[], name: string): Readonly<Record<string, string>>[] {
  return samples.filter((sample) => sample.name === name).map((sample) => sample.labels);
}
