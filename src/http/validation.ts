// Request validation. Two Ajv instances, chosen by the part of the request: JSON bodies are
// checked exactly as sent ("1" is not 1, unknown properties are errors, nothing is removed or
// defaulted), while query strings, path parameters and headers, which are text by nature, may
// be coerced ("5" to 5 for `limit`, one value to an array for repeatable parameters).
import { Ajv } from "ajv";
import type { ErrorObject, Options } from "ajv";
import type { FastifySchemaCompiler } from "fastify";
import { gatewayFormats } from "../../schemas/formats.js";
import { ID_PATTERN, ID_PATTERN_MESSAGE } from "../lexical/ids.js";
import { childPointer } from "../json/errors.js";
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
const textual = new Ajv({ ...COMMON, coerceTypes: "array" });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? exact : textual;
  return ajv.compile(schema as object);
};

export type RequestPart = "body" | "querystring" | "params" | "headers";

/** Ajv's errors as problem items: one per place, with a locator into the right request part. */
export function validationItems(errors: readonly ErrorObject[], part: RequestPart): ProblemItemJson[] {
  const items: ProblemItemJson[] = [];
  const seen = new Set<string>();
  for (const error of relevant(errors)) {
    const { path, message } = explain(error);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(locate(part, path, message));
  }
  return items;
}

/**
 * Inside an anyOf, the branch errors at the anyOf's own place are noise (a nested anyOf's own
 * error included, as the outer one names its constants too): keep only the outermost anyOf's
 * error there. Errors deeper in the value say what is wrong inside it and stay.
 */
function relevant(errors: readonly ErrorObject[]): ErrorObject[] {
  const anyOfs = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  return errors.filter((e) => !anyOfs.some((a) => e.instancePath === a.instancePath && e.schemaPath.startsWith(`${a.schemaPath}/`)));
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
