import {
  buildSchema,
  getNamedType,
  GraphQLEnumType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type GraphQLOutputType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { format, resolveConfig } from "prettier";
import { typeDefs } from "../../api/src/doors/graphql/schema";
import { QUERIES, SUBSCRIPTIONS } from "../../packages/sdk/src/graphql/operations";

/**
 * The TypeScript types of the SDK's GraphQL operations (packages/sdk/src/graphql/operations.ts): for each, its
 * variables and the shape of its `data`, walked from the document's selections over the data API's schema (the
 * SDL served at /graphql/schema.graphql). A document the schema does not validate fails the generation. Written
 * by `npm run sdk:types`; test/sdk/types.test.ts fails when packages/sdk/src/graphql/types.ts is not what this
 * produces.
 */

export const GRAPHQL_TYPES_FILE = "packages/sdk/src/graphql/types.ts";

/** How the schema's scalars travel in JSON. */
const SCALARS: Record<string, string> = {
  String: "string",
  ID: "string",
  Int: "number",
  Float: "number",
  Boolean: "boolean",
  BigInt: "string",
  DateTime: "string",
};

const pascal = (name: string) => name[0].toUpperCase() + name.slice(1);

function scalarOrEnum(name: string, enums: Set<string>, schema: GraphQLSchema): string {
  const named = schema.getType(name);
  if (named && isEnumType(named)) {
    enums.add(named.name);
    return named.name;
  }
  const ts = SCALARS[name];
  if (!ts) throw new Error(`no TypeScript type for the scalar ${name}`);
  return ts;
}

function outputType(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  enums: Set<string>,
  schema: GraphQLSchema,
): string {
  if (isNonNullType(type)) return bare(type.ofType, selection, enums, schema);
  return `${bare(type, selection, enums, schema)} | null`;
}

function bare(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  enums: Set<string>,
  schema: GraphQLSchema,
): string {
  if (isListType(type)) return `Array<${outputType(type.ofType, selection, enums, schema)}>`;
  if (isObjectType(type)) return objectType(type, selection!, enums, schema);
  return scalarOrEnum(getNamedType(type).name, enums, schema);
}

function objectType(
  type: GraphQLObjectType,
  selection: SelectionSetNode,
  enums: Set<string>,
  schema: GraphQLSchema,
): string {
  const fields = selection.selections.map((node) => {
    // The SDK's documents select fields only (no fragments, no aliases), so a field's key is its name.
    if (node.kind !== Kind.FIELD || node.alias) throw new Error(`select plain fields only (in ${type.name})`);
    const field = type.getFields()[node.name.value];
    return `${node.name.value}: ${outputType(field.type, node.selectionSet, enums, schema)};`;
  });
  return `{ ${fields.join(" ")} }`;
}

function inputType(type: GraphQLInputType, enums: Set<string>, schema: GraphQLSchema): string {
  if (type instanceof GraphQLNonNull) return inputType(type.ofType as GraphQLInputType, enums, schema);
  if (type instanceof GraphQLList) return `Array<${inputType(type.ofType as GraphQLInputType, enums, schema)}>`;
  return scalarOrEnum(getNamedType(type).name, enums, schema);
}

function operationTypes(
  key: string,
  source: string,
  schema: GraphQLSchema,
  enums: Set<string>,
): { name: string; text: string } {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`${key}: ${errors.map((e) => e.message).join("; ")}`);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const root = operation.operation === "query" ? schema.getQueryType()! : schema.getSubscriptionType()!;
  const name = pascal(key);
  const variables = (operation.variableDefinitions ?? []).map((definition) => {
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType;
    const optional = !(type instanceof GraphQLNonNull);
    return `${definition.variable.name.value}${optional ? "?" : ""}: ${inputType(type, enums, schema)}${optional ? " | null" : ""};`;
  });
  const text = [
    `/** Variables of \`${key}\`. */`,
    variables.length === 0
      ? `export type ${name}Variables = Record<string, never>;`
      : `export interface ${name}Variables { ${variables.join(" ")} }`,
    `/** The \`data\` of \`${key}\`. */`,
    `export type ${name}Result = ${objectType(root, operation.selectionSet, enums, schema)};`,
  ].join("\n");
  return { name, text };
}

export async function graphqlTypes(): Promise<string> {
  const schema = buildSchema(typeDefs);
  const enums = new Set<string>();
  const sections: string[] = [];
  const table = (operations: Record<string, string>, title: string) => {
    const rows = Object.entries(operations).map(([key, source]) => {
      const { name, text } = operationTypes(key, source, schema, enums);
      sections.push(text);
      return `${key}: { variables: ${name}Variables; result: ${name}Result };`;
    });
    return `export interface ${title} { ${rows.join(" ")} }`;
  };
  const queries = table(QUERIES, "QueryTypes");
  const subscriptions = table(SUBSCRIPTIONS, "SubscriptionTypes");
  const enumTypes = [...enums].sort().map((name) => {
    const values = (schema.getType(name) as GraphQLEnumType).getValues().map((v) => JSON.stringify(v.name));
    return `export type ${name} = ${values.join(" | ")};`;
  });
  const text = [
    "// Generated by scripts/sdk/graphqlTypes.ts from the data API's GraphQL schema and the SDK's",
    "// operations (src/graphql/operations.ts): do not edit. Regenerate with `npm run sdk:types`.",
    "",
    ...enumTypes,
    "",
    ...sections,
    "",
    "/** Each query's variables and result, by the name the client calls it with. */",
    queries,
    "/** Each subscription's variables and message data, by name. */",
    subscriptions,
    "",
  ].join("\n");
  const options = await resolveConfig(GRAPHQL_TYPES_FILE);
  return format(text, { ...options, filepath: GRAPHQL_TYPES_FILE });
}
