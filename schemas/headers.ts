// Headers shared by the job routes: entity tags (ETag, If-Match, If-None-Match) and Location.
// Names are in lower case in request schemas: with a custom validator compiler fastify matches
// header schemas against Node's lower-cased header names as written.
import { Type } from "@sinclair/typebox";
import { STRONG_ENTITY_TAG } from "norsk-manager-contract/lexical/entity-tag.js";

/** Response header: the job's currentHash as a strong entity tag. */
export const ETagHeader = Type.String({
  description: 'The job\'s currentHash as a strong entity tag, e.g. "-3481990684367738963"; send it back in If-Match or If-None-Match.',
  pattern: STRONG_ENTITY_TAG,
  examples: ['"-3481990684367738963"'],
});

/** Response header: where the created resource lives. */
export const LocationHeader = Type.String({
  description: "Path of the created resource (ids URL-encoded).",
  examples: ["/v1/jobs/encoder-1"],
});

// Request headers. No pattern: the route parses these itself and answers 400 naming the header (or 412 for a weak If-Match).
const IfMatchHeader = Type.Optional(
  Type.String({
    description:
      'Only change the job if its ETag is this one (412 otherwise), or `*` for any existing job. One strong entity tag; a weak tag never matches. A job whose ETag is "0" has no version the Manager can test: any entity tag is then a 412, and the write is made without If-Match.',
    examples: ["*"],
  }),
);

export const IfMatchHeaders = Type.Object({ "if-match": IfMatchHeader });

/** PUT's: If-Match, and If-None-Match: * to create the job only if it does not exist. */
export const ReplaceHeaders = Type.Object({
  "if-match": IfMatchHeader,
  "if-none-match": Type.Optional(
    Type.String({
      // No example: Swagger UI would send it, and "Try it out" would then create only.
      description:
        "`*` alone: create the job only if it does not exist (201 with Location and ETag; 412 when it exists, even identical). Not with If-Match or a non-zero currentHash (400); any other value is a 400.",
    }),
  ),
});

export const IfNoneMatchHeaders = Type.Object({
  "if-none-match": Type.Optional(
    Type.String({
      // No example: Swagger UI would send it, and a matching one makes "Try it out" a 304.
      description:
        'Answer 304 Not Modified, without a body, if the job\'s ETag is one of these (weak comparison), e.g. "-3481990684367738963", or for `*`.',
    }),
  ),
});
