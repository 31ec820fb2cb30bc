import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";
import type { GraphQLError, ValidationContext, ValidationRule } from "graphql";
import { createComplexityRule, simpleEstimator, type ComplexityEstimator } from "graphql-query-complexity";
import { DEFAULT_TRANSACTIONS_LIMIT, MAX_HISTORY_POINTS } from "../../readmodel/queries";
import { apiError, type GraphQLErrorCode } from "./errors";

/**
 * What one GraphQL operation may be and cost, checked before it runs (a refused operation answers 400 and costs
 * nothing). In the order they are checked:
 *
 * - size: a query text of at most MAX_QUERY_CHARS characters and MAX_TOKENS tokens (graphql-js stops parsing past it);
 * - expansion: at most MAX_SELECTIONS selections once every fragment spread is expanded (documentShape.ts), counted
 *   before any other rule walks the document, since those walk the expansion;
 * - graphql-js' standard rules, then GraphQL Armor's (fragments memoized): depth at most MAX_DEPTH
 *   (`vaults { strategies { name } }` is 3; introspection is bounded by graphql-js' own rule), at most MAX_ALIASES
 *   aliases and MAX_DIRECTIVES directives;
 * - cost: every field costs 1 plus its selections' cost, times the number of items a list field may answer
 *   (LIST_SIZES, or the `limit` argument of userTransactions), at most MAX_COMPLEXITY. All six vaults with every
 *   field and their strategies cost about 1,200; 500 transactions with their vaults' strategies are refused.
 *
 * What an admitted operation can make the server do follows from these: each root field (at most MAX_ALIASES plus the
 * nine of Query) is resolved once and raises at most one error, and the fields resolved and the answer's size are
 * bounded by the cost.
 */
export const MAX_QUERY_CHARS = 16 * 1024;
export const MAX_TOKENS = 2_000;
export const MAX_SELECTIONS = 1_000;
export const MAX_DEPTH = 8;
export const MAX_ALIASES = 20;
export const MAX_DIRECTIVES = 50;
export const MAX_COMPLEXITY = 10_000;

/** Items a list field is costed at: the most it answers in practice (vaults, strategies) or a bound of its own. */
export const LIST_SIZES: Record<string, number> = {
  "Query.vaults": 10,
  "Query.strategies": 50,
  "Query.userPositions": 10,
  "Query.vaultHistory": MAX_HISTORY_POINTS,
  "Vault.strategies": 10,
};

const listEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const key = `${type.name}.${field.name}`;
  if (key === "Query.userTransactions") {
    const limit = typeof args.limit === "number" ? args.limit : DEFAULT_TRANSACTIONS_LIMIT;
    return 1 + Math.max(1, limit) * childComplexity;
  }
  const size = LIST_SIZES[key];
  return size === undefined ? undefined : 1 + size * childComplexity;
};

/**
 * An Armor rule that reports its refusal as one of ours instead of throwing its own: Armor's message is parsed for
 * the figure it found (`... exceeded, found 12.`).
 */
function armorRefusal(code: GraphQLErrorCode, what: string, max: number) {
  return {
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const found = Number(/found (\d+)/.exec(error.message)?.[1]);
        context?.reportError(apiError(code, `${what} ${found} exceeds the maximum ${max}`, { found, max }));
      },
    ],
  };
}

/** The validation rules of every operation (HTTP and subscriptions), given the operation's variables. */
export function limitRules(variables: Record<string, unknown> | null | undefined): ValidationRule[] {
  return [
    maxDepthRule({ n: MAX_DEPTH, ...armorRefusal("QUERY_TOO_DEEP", "query depth", MAX_DEPTH) }) as ValidationRule,
    maxAliasesRule({
      n: MAX_ALIASES,
      ...armorRefusal("TOO_MANY_ALIASES", "aliases:", MAX_ALIASES),
    }) as ValidationRule,
    maxDirectivesRule({
      n: MAX_DIRECTIVES,
      ...armorRefusal("TOO_MANY_DIRECTIVES", "directives:", MAX_DIRECTIVES),
    }) as ValidationRule,
    createComplexityRule({
      maximumComplexity: MAX_COMPLEXITY,
      variables: variables ?? {},
      estimators: [listEstimator, simpleEstimator({ defaultComplexity: 1 })],
      createError: (max: number, actual: number): GraphQLError =>
        apiError("QUERY_TOO_COMPLEX", `query cost ${actual} exceeds the maximum ${max}`, { cost: actual, max }),
    }),
  ];
}
