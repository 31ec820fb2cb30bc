import {
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ParseOptions,
  type Source,
  type ValidationRule,
} from "graphql";
import { LRUCache } from "lru-cache";
import { expandedSelections } from "./documentShape";
import { apiError } from "./errors";
import { MAX_QUERY_CHARS, MAX_SELECTIONS, MAX_TOKENS } from "./limits";

/**
 * Parsed operations and their standard validation, kept per operation text. Parsing and checking an operation against
 * the schema cost several times what answering it does (the query layer answers from its per-block cache), and
 * clients send the same few operations again and again: each text is parsed once and checked against graphql-js'
 * standard rules once. Any other rule (the depth and cost limits, which depend on the variables) runs every time.
 *
 * Bounded by the total length of the texts kept (lru-cache's maxSize; the least recently used go first), so that a
 * client sending ever new operations cannot grow it; a text that does not parse is not kept.
 *
 * A text is admitted only within the size bounds of limits.ts, checked before anything walks it: its length, its
 * tokens (graphql-js stops parsing past MAX_TOKENS), then its selections once fragments are expanded.
 */
export class DocumentCache {
  readonly #documents: LRUCache<string, DocumentNode>;
  readonly #standardErrors = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  constructor(maxChars = 1_000_000) {
    this.#documents = new LRUCache({
      maxSize: maxChars,
      sizeCalculation: (_document, text) => Math.max(1, text.length),
    });
  }

  /** graphql's `parse`, answered from the cache for a text seen before. */
  readonly parse = (source: string | Source, options?: ParseOptions): DocumentNode => {
    if (typeof source !== "string" || options !== undefined) return parse(source, options);
    const kept = this.#documents.get(source);
    if (kept) return kept;
    const document = admit(source);
    // A text longer than maxChars is not kept (lru-cache's maxEntrySize defaults to maxSize).
    this.#documents.set(source, document);
    return document;
  };

  /** graphql's `validate`: the standard rules' answer kept per document, the other rules run each time. */
  readonly validate = (
    schema: GraphQLSchema,
    document: DocumentNode,
    rules: readonly ValidationRule[] = specifiedRules,
  ): readonly GraphQLError[] => {
    const others = rules.filter((rule) => !specifiedRules.includes(rule));
    if (rules.length - others.length !== specifiedRules.length) return validate(schema, document, rules);
    let standard = this.#standardErrors.get(document);
    if (!standard) {
      standard = validate(schema, document, specifiedRules);
      this.#standardErrors.set(document, standard);
    }
    if (standard.length > 0 || others.length === 0) return standard;
    return validate(schema, document, others);
  };
}

/** Parses a text within the size bounds; throws GraphQL errors with their codes (see errors.ts). */
function admit(source: string): DocumentNode {
  if (source.length > MAX_QUERY_CHARS) {
    throw apiError(
      "QUERY_TOO_LARGE",
      `query text of ${source.length} characters exceeds the maximum ${MAX_QUERY_CHARS}`,
      {
        chars: source.length,
        max: MAX_QUERY_CHARS,
      },
    );
  }
  let document: DocumentNode;
  try {
    document = parse(source, { maxTokens: MAX_TOKENS });
  } catch (error) {
    if (error instanceof GraphQLError && /contains more th(?:an|at) \d+ tokens/.test(error.message)) {
      throw apiError("TOO_MANY_TOKENS", `query text exceeds the maximum of ${MAX_TOKENS} tokens`, { max: MAX_TOKENS });
    }
    throw error;
  }
  const selections = expandedSelections(document);
  if (selections > MAX_SELECTIONS) {
    throw apiError(
      "QUERY_TOO_LARGE",
      `query expands to ${selections} selections once its fragments are spread, above the maximum ${MAX_SELECTIONS}`,
      { selections, max: MAX_SELECTIONS },
    );
  }
  return document;
}
