// Request validation. Two Ajv instances, chosen by the part of the request: JSON bodies are
// checked exactly as sent ("1" is not 1, unknown properties are errors, nothing is removed or
// defaulted), while query strings, path parameters and headers, which are text by nature, may
// be coerced ("5" to 5 for `limit`, one value to an array for repeatable parameters).
import { Ajv } from "ajv";
import type { ErrorObject, Options } from "ajv";
import type { FastifySchemaCompiler } from "fastify";
import { gatewayFormats } from "../../schemas/formats.js";
import { ID_PATTERN, ID_PATTERN_MESSAGE } from "norsk-manager-contract/lexical/ids.js";
import { MAX_LISTED_ISSUES, childPointer } from "../json/errors.js";
import type { ProblemItemJson } from "../../schemas/common.js";


const COMMON: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: false,
  verbose: true,
  strict: false,
  // int64, uint64 and date-time are checked by the mirror's own parsers (one implementation).
  formats: gatewayFormats,
  // Keywords TypeBox and OpenAPI add for documentation only.
  keywords: ["example", "x-enum-names"],
};

const exact = new Ajv({ ...COMMON, coerceTypes: false });
/** The same checks as `exact`, stopping at the first error. */
const exactFirst = new Ajv({ ...COMMON, coerceTypes: false, allErrors: false });
const textual = new Ajv({ ...COMMON, coerceTypes: "array" });

/**
 * The most values (members and elements at any depth) a body may hold and still be checked
 * for every error; a larger invalid body is answered with its first error. Ajv spends about a
 * microsecond on each error it reports, so a body of a hundred thousand bad entries would cost
 * a tenth of a second; a job holds about a hundred values, and a client fixing one by hand
 * gets every error at once.
 */
export const MAX_VALUES_FULLY_CHECKED = 1_000;

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart !== "body") return textual.compile(schema as object);
  return boundedValidator(exactFirst.compile(schema as object), exact.compile(schema as object));
};

/**
 * A body's validator: `first` alone for a valid body (it stops at nothing else), then `all`
 * for the full list when the body is small enough (MAX_VALUES_FULLY_CHECKED) for every error
 * to be cheap. fastify reads the errors from the function it was given, after the call.
 */
function boundedValidator(first: Validate, all: Validate): Validate {
  const validate: Validate = (data) => {
    if (first(data)) return true;
    if (holdsAtMost(data, MAX_VALUES_FULLY_CHECKED)) {
      all(data);
      validate.errors = all.errors;
    } else {
      validate.errors = first.errors;
    }
    return false;
  };
  return validate;
}

/** True when `value` holds at most `limit` members and elements at any depth; stops counting past it. */
function holdsAtMost(value: unknown, limit: number): boolean {
  let left = limit;
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== "object" || next === null) continue;
    const members: unknown[] = Array.isArray(next) ? (next as unknown[]) : Object.values(next);
    left -= members.length;
    if (left < 0) return false;
    pending.push(...members);
  }
  return true;
}

export type RequestPart = "body" | "querystring" | "params" | "headers";

/** Ajv's errors as problem items, and how many more there were than MAX_LISTED_ISSUES. */
export interface ValidationItems {
  readonly items: ProblemItemJson[];
  readonly notListed: number;
}

/**
 * Ajv's errors as problem items: one per place, with a locator into the right request part,
 * MAX_LISTED_ISSUES at most. Ajv reports every error of a body (allErrors), which costs little
 * per error; what would cost much (wording each, matching each against the others, answering
 * each) is done for the listed ones only, so the rest are counted as Ajv reported them.
 */
export function validationItems(errors: readonly ErrorObject[], part: RequestPart): ValidationItems {
  const items: ProblemItemJson[] = [];
  const seen = new Set<string>();
  const kept = relevant(errors);
  let index = 0;
  for (; index < kept.length && items.length < MAX_LISTED_ISSUES; index++) {
    const error = kept[index] as ErrorObject;
    const { path, message } = explain(error);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(locate(part, path, message));
  }
  return { items, notListed: kept.length - index };
}

/**
 * Inside an anyOf, the branch errors at the anyOf's own place are noise (a nested anyOf's own
 * error included, as the outer one names its constants too): keep only the outermost anyOf's
 * error there. Errors deeper in the value say what is wrong inside it and stay. One pass to
 * index the anyOfs by place and one to filter, so that many errors cost no more than many times one.
 */
function relevant(errors: readonly ErrorObject[]): ErrorObject[] {
  const anyOfs = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword !== "anyOf" && e.keyword !== "oneOf") continue;
    const at = anyOfs.get(e.instancePath);
    if (at === undefined) anyOfs.set(e.instancePath, [`${e.schemaPath}/`]);
    else at.push(`${e.schemaPath}/`);
  }
  if (anyOfs.size === 0) return [...errors];
  return errors.filter((e) => !(anyOfs.get(e.instancePath) ?? []).some((prefix) => e.schemaPath.startsWith(prefix)));
}

function explain(error: ErrorObject): { path: string; message: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return { path: child(error.instancePath, String(params.additionalProperty)), message: "unknown property" };
    case "required":
      return { path: child(error.instancePath, String(params.missingProperty)), message: "is required" };
    case "anyOf":
    case "oneOf":
      return { path: error.instancePath, message: alternatives(error.parentSchema) };
    case "pattern":
      // The id rule's pattern is not for reading: say what it means.
      return { path: error.instancePath, message: params.pattern === ID_PATTERN ? ID_PATTERN_MESSAGE : (error.message ?? "is invalid") };
    default:
      return { path: error.instancePath, message: error.message ?? "is invalid" };
  }
}

/** "must be one of ..." for an enum-like anyOf, else the allowed forms: "a string (int64) or null". */
function alternatives(schema: unknown): string {
  const branches = (schema as { anyOf?: unknown[]; oneOf?: unknown[] } | undefined)?.anyOf ?? [];
  const constants = branches.flatMap(constantsOf);
  const allowsInteger = branches.some((b) => (b as { type?: unknown }).type === "integer");
  if (constants.length > 0) {
    const names = constants.map((c) => JSON.stringify(c)).join(", ");
    return `must be one of ${names}${allowsInteger ? " (or the number of a value this gateway does not know)" : ""}`;
  }
  const forms = branches.map(formOf).filter((form) => form !== "");
  return forms.length === 0 ? "does not match any allowed form" : `must be ${forms.join(" or ")}`;
}

function formOf(branch: unknown): string {
  const { type, format } = branch as { type?: unknown; format?: unknown };
  if (type === "null") return "null";
  if (typeof type !== "string") return "";
  const article = /^[aeiou]/.test(type) ? "an" : "a";
  return typeof format === "string" ? `${article} ${type} (${format})` : `${article} ${type}`;
}

function constantsOf(branch: unknown): unknown[] {
  const b = branch as { const?: unknown; enum?: unknown[]; anyOf?: unknown[] };
  if (b.const !== undefined) return [b.const];
  if (Array.isArray(b.enum)) return b.enum;
  if (Array.isArray(b.anyOf)) return b.anyOf.flatMap(constantsOf);
  return [];
}

function child(pointer: string, name: string): string {
  return childPointer(pointer, name);
}

function locate(part: RequestPart, path: string, message: string): ProblemItemJson {
  if (part === "body") return { pointer: path, message };
  const name = path.split("/")[1] ?? "";
  const unescaped = name.replaceAll("~1", "/").replaceAll("~0", "~");
  return part === "headers" ? { header: unescaped, message } : { parameter: unescaped, message };
}

/**
 * fast-json-stringify's options, for fastify's response serializers and any compiled by hand:
 * it picks anyOf branches with its own Ajv, which must know the gateway's formats too.
 */
export const serializerOptions = { ajv: { formats: gatewayFormats } } as const;
