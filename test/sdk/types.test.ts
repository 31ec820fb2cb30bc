import { expect } from "chai";
import { readFileSync } from "node:fs";
import { buildSchema, parse, validate } from "graphql";
import { graphqlTypes, GRAPHQL_TYPES_FILE } from "../../scripts/sdk/graphqlTypes";
import { DATA_API_TYPES, LIVE_API_TYPES, openApiTypes } from "../../scripts/sdk/openapiTypes";
import { QUERIES, SUBSCRIPTIONS } from "../../packages/sdk/src/graphql/operations";
import { startTestApp, type TestApp } from "../api/helpers/app";

/** The SDK's generated types follow the API: regenerating them (npm run sdk:types) must change nothing. */
describe("SDK: generated types are up to date with the API", function () {
  this.timeout(60_000);

  for (const target of [LIVE_API_TYPES, DATA_API_TYPES]) {
    it(`${target.file} is what ${target.what} gives now`, async function () {
      expect(readFileSync(target.file, "utf8")).to.equal(await openApiTypes(target));
    });
  }

  it(`${GRAPHQL_TYPES_FILE} is what the GraphQL schema and the SDK's operations give now`, async function () {
    expect(readFileSync(GRAPHQL_TYPES_FILE, "utf8")).to.equal(await graphqlTypes());
  });

  describe("against a server", function () {
    let app: TestApp;
    before(async function () {
      app = await startTestApp();
    });
    after(async function () {
      await app?.close();
    });

    it("the data API's /v1/openapi.json is the document the data types are generated from", async function () {
      const served = (await (await fetch(`${app.url}/v1/openapi.json`)).json()) as Record<string, unknown>;
      const generatedFrom = JSON.parse(JSON.stringify(DATA_API_TYPES.document())) as { servers: unknown };
      expect({ ...served, servers: undefined }).to.deep.equal({ ...generatedFrom, servers: undefined });
    });

    it("every operation of the SDK validates against the SDL served at /graphql/schema.graphql", async function () {
      const sdl = await (await fetch(`${app.url}/graphql/schema.graphql`)).text();
      const schema = buildSchema(sdl);
      const operations = { ...QUERIES, ...SUBSCRIPTIONS };
      expect(Object.keys(operations)).to.have.length(11);
      for (const [name, source] of Object.entries(operations)) {
        expect(
          validate(schema, parse(source)).map((e) => e.message),
          name,
        ).to.deep.equal([]);
      }
    });
  });
});
