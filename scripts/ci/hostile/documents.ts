import fc from "fast-check";
import {
  getNamedType,
  isEnumType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from "graphql";

/**
 * GraphQL documents generated with fast-check from the served schema (its SDL, built with graphql-js): valid
 * operations with random arguments, broken ones, and the shapes that cost a server most to parse, validate or run
 * (deep, wide, aliased, fragment fan-out and cycles, directives, long tokens).
 */

export interface Operation {
  query: unknown;
  variables?: unknown;
  operationName?: unknown;
}

const hexAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);

/** A value for an argument of the given type, written as a GraphQL literal; sometimes of the wrong type. */
function literal(type: GraphQLInputType, argName: string, vaults: string[]): fc.Arbitrary<string> {
  const named = getNamedType(type);
  const address = fc.oneof(
    fc.constantFrom(...(vaults.length > 0 ? vaults : ["0x0000000000000000000000000000000000000000"])),
    hexAddress,
    fc.string({ maxLength: 50 }),
  );
  let right: fc.Arbitrary<string>;
  if (isEnumType(named)) right = fc.constantFrom(...named.getValues().map((v) => v.name));
  else if (/address/i.test(argName)) right = address.map((a) => JSON.stringify(a));
  else if (named.name === "Int") right = fc.oneof(fc.integer({ min: -5, max: 600 }), fc.integer()).map(String);
  else if (named.name === "Float") right = fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
  else if (named.name === "Boolean") right = fc.boolean().map(String);
  else if (named.name === "BigInt")
    right = fc.oneof(
      fc.bigInt({ min: -1n, max: 10n ** 30n }).map((n) => JSON.stringify(String(n))),
      fc.nat().map(String),
    );
  else if (named.name === "DateTime")
    right = fc.date({ noInvalidDate: true }).map((d) => JSON.stringify(d.toISOString()));
  else right = fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s));
  const wrong = fc.oneof(
    fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
    fc.integer().map(String),
    fc.constant("null"),
    fc.constant("[1, 2]"),
    fc.constant("{ a: 1 }"),
  );
  return fc.oneof({ arbitrary: right, weight: 9 }, { arbitrary: wrong, weight: 1 });
}

function argumentsOf(args: readonly GraphQLArgument[], vaults: string[]): fc.Arbitrary<string> {
  if (args.length === 0) return fc.constant("");
  const each = args.map((arg) => {
    const value = literal(arg.type, arg.name, vaults).map((v) => `${arg.name}: ${v}`);
    // A required argument is nearly always given; an optional one half the time.
    return isNonNullType(arg.type)
      ? fc.oneof({ arbitrary: value, weight: 19 }, { arbitrary: fc.constant(""), weight: 1 })
      : fc.option(value, { nil: "" });
  });
  return fc.tuple(...each).map((parts) => {
    const given = parts.filter((p) => p !== "");
    return given.length === 0 ? "" : `(${given.join(", ")})`;
  });
}

/** A selection set of `type`, at most `depth` levels of objects below it. */
function selectionSet(type: GraphQLObjectType, depth: number, vaults: string[]): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields()).filter((field) => depth > 0 || isLeafType(getNamedType(field.type)));
  const arbitraries = fields.map((field) => {
    const named = getNamedType(field.type);
    const sub = isObjectType(named) ? selectionSet(named, depth - 1, vaults) : fc.constant("");
    return fc
      .tuple(
        fc.option(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/), { nil: undefined, freq: 4 }),
        argumentsOf(field.args, vaults),
        sub,
      )
      .map(
        ([alias, args, selections]) =>
          `${alias ? `${alias}: ` : ""}${field.name}${args}${selections ? ` ${selections}` : ""}`,
      );
  });
  return fc
    .subarray(arbitraries, { minLength: 1, maxLength: Math.min(arbitraries.length, 6) })
    .chain((picked) => fc.tuple(...picked))
    .map((parts) => `{ ${parts.join(" ")} }`);
}

/** Valid-looking operations of the schema's Query (or Subscription) type, with random arguments. */
export function operations(
  schema: GraphQLSchema,
  root: "query" | "subscription",
  vaults: string[],
): fc.Arbitrary<Operation> {
  const type = (root === "query" ? schema.getQueryType() : schema.getSubscriptionType()) as GraphQLObjectType;
  const rootFields = Object.values(type.getFields()).map((field) => {
    const named = getNamedType(field.type);
    const sub = isObjectType(named) ? selectionSet(named, 2, vaults) : fc.constant("");
    return fc
      .tuple(argumentsOf(field.args, vaults), sub)
      .map(([args, selections]) => `${field.name}${args}${selections ? ` ${selections}` : ""}`);
  });
  const body =
    root === "subscription"
      ? fc.oneof(...rootFields)
      : fc
          .subarray(rootFields, { minLength: 1, maxLength: 3 })
          .chain((p) => fc.tuple(...p))
          .map((p) => p.join(" "));
  return fc
    .tuple(body, fc.option(fc.stringMatching(/^[A-Z][a-zA-Z]{0,10}$/), { nil: undefined }))
    .map(([text, name]) => ({
      query: `${root}${name ? ` ${name}` : ""} { ${text} }`,
      ...(name ? { operationName: name } : {}),
    }));
}

/** The vault query through a variable, with random variable values (right, wrong type, missing, extra). */
export function withVariables(vaults: string[]): fc.Arbitrary<Operation> {
  return fc
    .tuple(
      fc.oneof(fc.constantFrom(...(vaults.length ? vaults : ["0x0"])), hexAddress, fc.jsonValue()),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
    )
    .map(([address, extra]) => ({
      query:
        "query V($address: String!, $n: Int) { vault(address: $address) { name tvl } userTransactions(address: $address, limit: $n) { hash } }",
      variables: { ...extra, address },
    }));
}

/** Broken operations: cut text, stray characters, unknown fields, wrong roots, not a string, random JSON. */
export function brokenOperations(schema: GraphQLSchema, vaults: string[]): fc.Arbitrary<Operation> {
  const valid = operations(schema, "query", vaults);
  const text = valid.map((op) => op.query as string);
  return fc.oneof(
    fc.tuple(text, fc.nat()).map(([q, at]) => ({ query: q.slice(0, at % Math.max(1, q.length)) })),
    fc.tuple(text, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([q, at, s]) => {
      const i = at % Math.max(1, q.length);
      return { query: q.slice(0, i) + s + q.slice(i) };
    }),
    fc.stringMatching(/^[a-z]{1,12}$/).map((name) => ({ query: `{ ${name} }` })),
    text.map((q) => ({ query: q.replace(/^query/, "mutation") })),
    text.map((q) => ({ query: q.replace("{", "{ __type(name: 1) { name } ") })),
    fc.string({ maxLength: 200 }).map((s) => ({ query: s })),
    fc.jsonValue().map((v) => ({ query: v })),
    fc.tuple(text, fc.jsonValue()).map(([q, v]) => ({ query: q, variables: v })),
    fc.tuple(text, fc.jsonValue()).map(([q, v]) => ({ query: q, operationName: v })),
    fc.constant({ query: "" }),
    fc.constant({ query: "query A { __typename } query B { __typename }" }),
    fc.constant({ query: 'subscription { vaultUpdated(address: "0x0") { name } }' }),
  );
}

function repeat(count: number, make: (i: number) => string, separator = " "): string {
  return Array.from({ length: count }, (_, i) => make(i)).join(separator);
}

/** The fan-out family: fragment F_k spreads F_{k-1} `width` times, the operation spreads F_n. */
export function fanOut(levels: number, width: number, leaf = "protocolStats { totalTvl }"): string {
  const fragments = [`fragment F0 on Query { ${leaf} }`];
  for (let k = 1; k <= levels; k++)
    fragments.push(`fragment F${k} on Query { ${repeat(width, () => `...F${k - 1}`)} }`);
  return `query { ...F${levels} } ${fragments.join(" ")}`;
}

/** Documents shaped to cost the server most before or while it runs them. */
export function shapedOperations(vaults: string[]): fc.Arbitrary<{ shape: string; op: Operation }> {
  const vault = vaults[0] ?? "0x0000000000000000000000000000000000000000";
  const shape = (name: string, arbitrary: fc.Arbitrary<string>) =>
    arbitrary.map((query) => ({ shape: name, op: { query } }));
  return fc.oneof(
    shape(
      "deep nesting",
      fc.integer({ min: 1, max: 20_000 }).map((n) => `${"{ vaults ".repeat(n)}{ name }${" }".repeat(n)}`),
    ),
    shape(
      "deep nesting of unknown fields",
      fc.integer({ min: 1, max: 20_000 }).map((n) => `${"{ a ".repeat(n)}${" }".repeat(n)}`),
    ),
    shape(
      "wide: one field repeated",
      fc.integer({ min: 1, max: 50_000 }).map((n) => `{ protocolStats { ${"totalTvl ".repeat(n)}} }`),
    ),
    shape(
      "wide: conflicting aliases",
      fc
        .integer({ min: 1, max: 5_000 })
        .map((n) => `{ ${repeat(n, (i) => `a: vault(address: "${i % 2 ? vault : "0x1"}") { name }`)} }`),
    ),
    shape(
      "aliased vault misses",
      fc
        .integer({ min: 1, max: 6_000 })
        .map(
          (n) => `{ ${repeat(n, (i) => `a${i}: vault(address: "0x${i.toString(16).padStart(40, "0")}") { name }`)} }`,
        ),
    ),
    shape(
      "aliased cheap fields",
      fc.integer({ min: 1, max: 20_000 }).map((n) => `{ ${repeat(n, (i) => `a${i}: __typename`)} }`),
    ),
    shape(
      "aliased protocolStats",
      fc
        .integer({ min: 1, max: 5_000 })
        .map((n) => `{ ${repeat(n, (i) => `a${i}: protocolStats { totalTvl vaultCount }`)} }`),
    ),
    shape(
      "fragment cycle",
      fc
        .integer({ min: 2, max: 500 })
        .map((n) => `query { ...C0 } ${repeat(n, (i) => `fragment C${i} on Query { __typename ...C${(i + 1) % n} }`)}`),
    ),
    shape(
      "many fragments",
      fc
        .integer({ min: 1, max: 5_000 })
        .map(
          (n) =>
            `query { ...G0 } ${repeat(n, (i) => `fragment G${i} on Query { __typename ${i + 1 < n ? `...G${i + 1}` : ""} }`)}`,
        ),
    ),
    shape(
      "directives",
      fc.integer({ min: 1, max: 20_000 }).map((n) => `{ __typename ${"@include(if: true) ".repeat(n)}}`),
    ),
    shape(
      "long string token",
      fc.integer({ min: 1, max: 60_000 }).map((n) => `{ vault(address: "${"a".repeat(n)}") { name } }`),
    ),
    shape(
      "many arguments",
      fc.integer({ min: 1, max: 10_000 }).map((n) => `{ vault(${repeat(n, (i) => `x${i}: 1`, ", ")}) { name } }`),
    ),
    shape(
      "many operations",
      fc.integer({ min: 1, max: 5_000 }).map((n) => repeat(n, (i) => `query Q${i} { __typename }`)),
    ),
    shape(
      "nested introspection",
      fc
        .integer({ min: 1, max: 40 })
        .map((n) => `{ __schema { types { ${"fields { type { ".repeat(n)}name${" } }".repeat(n)} } } }`),
    ),
    shape(
      "many variables",
      fc.integer({ min: 1, max: 5_000 }).map((n) => `query (${repeat(n, (i) => `$v${i}: Int`, ", ")}) { __typename }`),
    ),
    shape(
      "large transaction page",
      fc
        .integer({ min: 1, max: 100_000 })
        .map(
          (n) => `{ userTransactions(address: "${vault}", limit: ${n}) { hash vault { name strategies { name } } } }`,
        ),
    ),
  );
}

/** The fan-out family at a random size: levels 1 to 30, two to four spreads a level. */
export function fanOutOperations(): fc.Arbitrary<{ shape: string; op: Operation }> {
  return fc.tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 2, max: 4 })).map(([levels, width]) => ({
    shape: `fragment fan-out ${width}^${levels}`,
    op: { query: fanOut(levels, width) },
  }));
}
