import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
/** The route declarations whose requests and answers the wire contract holds. */
const ROUTE_FOLDERS = ["api/src/doors/live/routes", "api/src/doors/data/access"];

/** Each zod schema a source builds itself (`z.object(`, `z.enum(`...); `z.input<>`/`z.output<>` are types of one. */
function schemasBuiltIn(text: string): string[] {
  return [...text.matchAll(/\bz\.(?!input<|output<|infer<)(\w+)/g)].map((match) => `z.${match[1]}`);
}

describe("the service's routes take every schema from the wire contract", () => {
  it("declares no request or response schema in the live API's routes or the data API's access routes", () => {
    const built: string[] = [];
    for (const folder of ROUTE_FOLDERS) {
      for (const name of readdirSync(path.join(ROOT, folder)).filter((file) => file.endsWith(".ts"))) {
        const file = path.join(folder, name);
        for (const schema of schemasBuiltIn(readFileSync(path.join(ROOT, file), "utf8")))
          built.push(`${file}: ${schema}`);
      }
    }
    expect(built).to.deep.equal([]);
  });

  it("names a schema built in place and lets the types of one by", () => {
    const source = [
      "const body = z.strictObject({ id: z.string() });",
      "type In = z.input<typeof body>;",
      "type Out = z.output<typeof body>;",
    ].join("\n");
    expect(schemasBuiltIn(source)).to.deep.equal(["z.strictObject", "z.string"]);
  });
});
