// Which request bodies an operation reads, by media type.
import type { FastifyRequest } from "fastify";
import { mediaType } from "./media-type.js";
import { unsupportedMediaType } from "./problem.js";

/**
 * A preValidation hook accepting only the listed media types (parameters such as charset
 * aside). fastify parses any JSON-like body it has a parser for; this keeps a merge patch out
 * of PUT and POST, where it would mean something else.
 */
export function acceptOnly(...mediaTypes: string[]): (request: FastifyRequest) => Promise<void> {
  return (request) => {
    const given = mediaType(request.headers["content-type"]);
    if (!mediaTypes.includes(given)) {
      return Promise.reject(
        unsupportedMediaType(`Content-Type must be ${mediaTypes.join(" or ")}`, {
          errors: [{ header: "content-type", message: `is ${given === "" ? "missing" : JSON.stringify(given)}` }],
        }),
      );
    }
    return Promise.resolve();
  };
}
