import {
  getOperationAST,
  Kind,
  specifiedRules,
  type DocumentNode,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
} from "graphql";
import type { DataKeyRecord } from "../data/access";
import type { DocumentCache } from "./documentCache";
import { apiError } from "./errors";
import { missingScope } from "./fieldScopes";
import { limitRules } from "./limits";

/**
 * Everything an operation goes through before it runs, the same on both doors (HTTP and graphql-ws): the text is
 * parsed within its size bounds, validated (graphql-js' rules, then limits.ts'), its operation picked, and the
 * caller's key checked for the scope of every root field. Answers the execution's arguments, or the refusal with the
 * HTTP status it gets.
 */

export interface OperationRequest {
  query: unknown;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface Refusal {
  status: number;
  errors: readonly GraphQLError[];
  headers?: Record<string, string>;
}

export type Prepared = { args: Omit<ExecutionArgs, "contextValue">; kind: "query" | "mutation" | "subscription" };

export function prepareOperation(
  schema: GraphQLSchema,
  documents: DocumentCache,
  request: OperationRequest,
  key: DataKeyRecord | undefined,
): Prepared | Refusal {
  if (typeof request.query !== "string" || request.query.trim() === "") {
    return refused(400, apiError("BAD_REQUEST", "the request has no query: send { query, variables, operationName }"));
  }
  let document: DocumentNode;
  try {
    document = documents.parse(request.query);
  } catch (error) {
    return { status: 400, errors: [error as GraphQLError] };
  }
  const rules = [...specifiedRules, ...limitRules(request.variables)];
  const errors = documents.validate(schema, document, rules);
  if (errors.length > 0) return { status: 400, errors };
  const operation = getOperationAST(document, request.operationName ?? undefined);
  if (!operation) {
    const named = request.operationName ? `no operation named '${request.operationName}'` : "no single operation";
    return refused(400, apiError("OPERATION_NOT_FOUND", `${named} in the document: name one with operationName`));
  }
  if (key) {
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    }
    const missing = missingScope(operation, fragments, key.scopes);
    if (missing) {
      const { field, scope } = missing;
      return {
        status: 401,
        errors: [
          apiError(
            "INSUFFICIENT_SCOPE",
            `this key lacks the scope ${scope} that the field ${field} needs; its scopes: ${key.scopes.join(", ")}`,
            { required_scope: scope, field, key_scopes: key.scopes, key_id: key.keyId },
          ),
        ],
        headers: { "WWW-Authenticate": `Bearer realm="nap-data", error="insufficient_scope", scope="${scope}"` },
      };
    }
  }
  return {
    kind: operation.operation,
    args: {
      schema,
      document,
      operationName: request.operationName ?? undefined,
      variableValues: request.variables ?? undefined,
    },
  };
}

export function isRefusal(prepared: Prepared | Refusal): prepared is Refusal {
  return "errors" in prepared;
}

function refused(status: number, error: GraphQLError): Refusal {
  return { status, errors: [error] };
}
