// The configuration reference, docs/reference/configuration.md, written from ConfigSchema
// (src/config.ts) as --help is: each setting's flag, environment variable, default, accepted
// values and meaning. `npm run docs:config` writes it; test/config-reference.test.ts fails
// while the committed file differs from what this returns.
import type { TSchema } from "@sinclair/typebox";
import { SETTINGS, defaultText, settingSchema } from "./config.js";

export const CONFIGURATION_REFERENCE_PATH = "docs/reference/configuration.md";

export function configurationReference(): string {
  const rows = SETTINGS.map(({ key, flag, env }) => {
    const schema = settingSchema(key);
    return `| \`--${flag}\` | \`${env}\` | ${code(defaultText(key))} | ${cell(accepted(schema))} | ${cell(schema.description)} |`;
  });
  return [
    "# Configuration",
    "",
    "<!-- Written by `npm run docs:config` from ConfigSchema in src/config.ts; edit that, not this file. -->",
    "",
    "Each setting is read from its flag, else from its environment variable, else it takes its default.",
    "`norsk-manager-gateway --help` prints the same list. A value that is not accepted stops start-up",
    "with one line naming the setting (exit status 2).",
    "",
    "- Numbers are whole numbers in plain decimal digits (`1e3`, `10.0` and ` 5` are refused).",
    "- Lists are comma-separated; a list's flag may also be repeated.",
    "- Switches are `true`, `false`, `1` or `0`; the flag alone means `true`.",
    "",
    "| Flag | Environment variable | Default | Accepted | Meaning |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

/** What a setting's schema accepts, in words. */
function accepted(schema: TSchema): string {
  if (schema.type === "integer") return `${String(schema.minimum)} to ${String(schema.maximum)}`;
  if (schema.type === "boolean") return "a switch";
  if (schema.type === "array") return "a list";
  const literals = (schema.anyOf as TSchema[] | undefined)?.map((member) => String(member.const));
  if (literals !== undefined) return literals.join(", ");
  return "text";
}

function code(text: string): string {
  return text === "unset" || text === "none" ? text : `\`${text}\``;
}

/** Text that a Markdown table cell shows as written. */
function cell(text: string): string {
  return text.replace(/[|*_\\]/g, (character) => `\\${character}`);
}
