import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import type { Scope } from "../../usecases/dataKeys/scopes";

/**
 * The scope a data key needs for each root field, the same as the REST route that serves the same data needs
 * (usecases/dataKeys/scopes.ts): a key used outside its scopes is refused (401 INSUFFICIENT_SCOPE) rather than served
 * on a lower tier, as REST does. Anonymous callers need no scope (Public tier). Introspection fields need none.
 */
export const ROOT_FIELD_SCOPES: Readonly<Record<string, Scope>> = {
  // Query
  vaults: "vaults:read",
  vault: "vaults:read",
  vaultHistory: "vaults:read",
  strategies: "vaults:read",
  strategy: "vaults:read",
  protocolStats: "vaults:read",
  // REST's /v1/status.
  nodeStats: "vaults:read",
  userPositions: "users:read",
  userTransactions: "users:read",
  // Subscription: /ws' vault and transactions channels (a user's transactions are read by user below).
  vaultUpdated: "vaults:read",
  transactionCreated: "vaults:read",
};

export interface MissingScope {
  field: string;
  scope: Scope;
}

/**
 * The first root field of the operation whose scope the key lacks, following fragment spreads and inline fragments
 * at the root (each fragment once); undefined when the key holds every scope needed.
 */
export function missingScope(
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  scopes: readonly string[],
): MissingScope | undefined {
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode): MissingScope | undefined => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const scope = ROOT_FIELD_SCOPES[selection.name.value];
        if (scope && !scopes.includes(scope)) return { field: selection.name.value, scope };
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const found = visit(selection.selectionSet);
        if (found) return found;
        continue;
      }
      const name = selection.name.value;
      const fragment = fragments[name];
      if (seen.has(name) || !fragment) continue;
      seen.add(name);
      const found = visit(fragment.selectionSet);
      if (found) return found;
    }
    return undefined;
  };
  return visit(operation.selectionSet);
}
