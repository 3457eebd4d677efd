// docs/reference/configuration.md is current: what src/config-reference.ts writes from the
// configuration schema, with a row for every setting.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIGURATION_REFERENCE_PATH, configurationReference } from "../src/config-reference.js";
import { SETTINGS, defaultText } from "../src/config.js";

const committed = readFileSync(CONFIGURATION_REFERENCE_PATH, "utf8");

describe("docs/reference/configuration.md", () => {
  it("equals what the schema generates (run `npm run docs:config` and commit the result)", () => {
    expect(committed).toBe(configurationReference());
  });

  it.each(SETTINGS.map((setting) => [setting.flag, setting] as const))("has the row of --%s: its variable and default", (_flag, setting) => {
    const row = committed.split("\n").find((line) => line.startsWith(`| \`--${setting.flag}\` |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| \`${setting.env}\` |`);
    expect(row).toContain(defaultText(setting.key));
  });
});
