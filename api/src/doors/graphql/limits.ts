import type { GraphQLError, ValidationRule } from "graphql";
import depthLimit from "graphql-depth-limit";
import { createComplexityRule, simpleEstimator, type ComplexityEstimator } from "graphql-query-complexity";
import { DEFAULT_TRANSACTIONS_LIMIT } from "../../readmodel/queries";
import { apiError } from "./errors";

/**
 * What one GraphQL operation may cost, checked before it runs (a refused operation answers 400 and costs nothing):
 *
 * - depth: at most MAX_DEPTH nested selections (`vaults { strategies { name } }` is 3);
 * - cost: every field costs 1 plus its selections' cost, times the number of items a list field may answer
 *   (LIST_SIZES, or the `limit` argument of userTransactions), at most MAX_COMPLEXITY. All six vaults with every
 *   field and their strategies cost about 1,200; 500 transactions with their vaults' strategies are refused.
 */
export const MAX_DEPTH = 8;
export const MAX_COMPLEXITY = 10_000;

/** Items a list field is costed at: the most it answers in practice (vaults, strategies) or a bound of its own. */
export const LIST_SIZES: Record<string, number> = {
  "Query.vaults": 10,
  "Query.strategies": 50,
  "Query.userPositions": 10,
  "Query.vaultHistory": 100,
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

/** The validation rules of every operation (HTTP and subscriptions), given the operation's variables. */
export function limitRules(variables: Record<string, unknown> | null | undefined): ValidationRule[] {
  return [
    depthLimit(MAX_DEPTH),
    createComplexityRule({
      maximumComplexity: MAX_COMPLEXITY,
      variables: variables ?? {},
      estimators: [listEstimator, simpleEstimator({ defaultComplexity: 1 })],
      createError: (max: number, actual: number): GraphQLError =>
        apiError("QUERY_TOO_COMPLEX", `query cost ${actual} exceeds the maximum ${max}`, { cost: actual, max }),
    }),
  ];
}
