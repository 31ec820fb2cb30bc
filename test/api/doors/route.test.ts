import { expect } from "chai";
import Koa, { type Context } from "koa";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { defineRoute, routeHandler, type InputPolicy } from "../../../api/src/doors/route";

/**
 * The one route declaration as a door mounts it: an ordinary async handler works, and a declared cache answers a
 * kept value without a promise and serializes each kept value once.
 */

const input: InputPolicy = {
  parse: (_route, schema, value) => schema.parse(value),
  query: (ctx) => ({ ...ctx.query }),
  body: async () => ({}),
};

function fakeContext(querystring = ""): Context {
  const headers: Record<string, string> = {};
  return {
    querystring,
    query: {},
    params: {},
    headers: {},
    req: { headers: {} },
    set: (name: string, value: string) => void (headers[name] = value),
    state: {},
    body: undefined,
  } as unknown as Context;
}

describe("doors/route: the one route declaration", function () {
  it("awaits an ordinary async handler and answers its value", async function () {
    const route = defineRoute({
      method: "get",
      path: "/v1/async",
      tag: "t",
      summary: "s",
      responses: { 200: { description: "ok" } },
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { answered: true };
      },
    });
    const ctx = fakeContext();
    const answered = routeHandler(route, input)(ctx, async () => undefined);
    expect(answered).to.be.instanceOf(Promise);
    await answered;
    expect(ctx.body).to.deep.equal({ answered: true });
  });

  it("answers a kept value at once, serializing each value once", async function () {
    const kept = { list: [1, 2, 3] };
    let serialized = 0;
    let loaded = 0;
    const route = defineRoute({
      method: "get",
      path: "/v1/kept",
      tag: "t",
      summary: "s",
      query: z.strictObject({}),
      responses: { 200: { description: "ok" } },
      cache: {
        kept: () => kept,
        body: (value: typeof kept) => {
          serialized += 1;
          return { items: value.list };
        },
      },
      handler: async () => {
        loaded += 1;
        return kept;
      },
    });
    const handler = routeHandler(route, input);
    const app = new Koa();
    app.use(handler);
    const server = app.listen(0);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/kept`;
      const answers = await Promise.all([fetch(url), fetch(url), fetch(url)]);
      for (const answer of answers) {
        expect(answer.headers.get("content-type")).to.equal("application/json; charset=utf-8");
        expect(await answer.json()).to.deep.equal({ items: [1, 2, 3] });
      }
      expect([serialized, loaded]).to.deep.equal([1, 0]);
      expect(handler(fakeContext(), async () => undefined)).to.equal(undefined);
    } finally {
      server.close();
    }
  });
});
