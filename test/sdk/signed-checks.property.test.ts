import { expect } from "chai";
import fc from "fast-check";
import { Wallet } from "ethers";
import { ACTIONS, askedValues, type ActionName } from "../../packages/sdk/src/signed/actions";
import { checkPrepared, type PreparedWrite } from "../../packages/sdk/src/signed/check";
import { prepare } from "./helpers/signedWritesService";

/**
 * The check before signing, as properties over every action and request: the service's honest answer is accepted
 * and what gets signed is exactly its message; any one field of the answer changed (owner, vault, an amount, the
 * receiver, a type, the chain, the router, the spender, the operator...) is refused. The fields left to the service
 * (the token's nonce and name, the authorisation's nonce, the extras' deadlines) are the only ones a change passes.
 */

const OWNER = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address;
const SEGMENTS: Record<ActionName, string> = {
  deposit: "deposit",
  redeem: "redeem",
  requestRedeem: "request-redeem",
  claim: "claim",
  cancelRedeem: "cancel-redeem",
};
const VAULT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const NOW = 1_900_000_000;
/** Values the service decides and the wallet cannot know: a change of one of them is not the wallet's to refuse. */
const SERVICE_CHOSEN = new Set([
  "permit.message.nonce",
  "permit.message.deadline",
  "permit.domain.name",
  "permit.domain.version",
  "permit.domain.verifyingContract",
  "operator_authorization.message.nonce",
  "operator_authorization.message.deadline",
  "operator_authorization.domain.name",
]);

const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);
const amount = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

const request = fc.record({
  action: fc.constantFrom(...(Object.keys(ACTIONS) as ActionName[])),
  amount,
  receiver: fc.option(address, { nil: undefined }),
  minimum: fc.option(amount, { nil: undefined }),
});

type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

function scenario(r: Request) {
  const spec = ACTIONS[r.action];
  const fields: Record<string, unknown> = {
    vault: VAULT,
    amount: r.amount,
    shares: r.amount,
    receiver: r.receiver,
    minShares: r.minimum,
    minAssets: r.minimum,
  };
  const asked = askedValues(spec, fields, OWNER);
  const query = Object.fromEntries([["owner", OWNER], ...[...asked].map(([param, value]) => [param.wire, value])]);
  const prepared = prepare(SEGMENTS[r.action], VAULT, query, NOW) as unknown as PreparedWrite;
  const expectations = {
    spec,
    owner: OWNER,
    vault: VAULT,
    asked: Object.fromEntries([...asked].map(([param, value]) => [param.message, value])),
    permitValue: spec.extra === "permit" ? asked.get(spec.params[0]) : undefined,
    nowSeconds: NOW,
  };
  return { prepared, expectations };
}

/** Every leaf of the answer's typed data, as a dotted path. */
function leaves(prepared: PreparedWrite): string[] {
  const paths: string[] = ["vault", "chain_id", "router", "nonce", "deadline"];
  for (const part of ["intent", "permit", "operator_authorization"] as const) {
    const data = prepared[part];
    if (!data) continue;
    paths.push(`${part}.primaryType`);
    for (const key of Object.keys(data.domain)) paths.push(`${part}.domain.${key}`);
    for (const key of Object.keys(data.message)) paths.push(`${part}.message.${key}`);
    const [type] = Object.keys(data.types).filter((name) => name !== "EIP712Domain");
    data.types[type].forEach((_, i) =>
      paths.push(`${part}.types.${type}.${i}.name`, `${part}.types.${type}.${i}.type`),
    );
  }
  return paths;
}

/** Another value of the same kind as `value`. */
function changed(value: unknown, salt: number): unknown {
  if (typeof value === "boolean") return !value;
  if (typeof value === "number") return value + 1 + salt;
  const text = String(value);
  if (/^0x[0-9a-fA-F]+$/.test(text)) {
    const last = parseInt(text.at(-1)!, 16);
    return `${text.slice(0, -1)}${((last + 1 + (salt % 15)) % 16).toString(16)}`;
  }
  if (/^\d+$/.test(text)) return (BigInt(text) + 1n + BigInt(salt)).toString();
  return `${text}x`;
}

function set(target: object, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  let node = target as Record<string, unknown>;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  node[last] = value;
}

function get(target: object, path: string): unknown {
  return path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], target);
}

describe("SDK: the check before signing, as properties (fast-check)", function () {
  it("an honest answer is accepted, and what is signed is the service's message, field for field", function () {
    fc.assert(
      fc.property(request, (r) => {
        const { prepared, expectations } = scenario(r);
        const checked = checkPrepared(prepared, expectations);
        expect(checked).to.not.have.property("problems");
        if ("problems" in checked) return;
        expect(checked.intent.message).to.deep.equal(prepared.intent.message);
        expect(checked.intent.domain).to.deep.equal(prepared.intent.domain);
        if (prepared.permit) expect(checked.permit!.message).to.deep.equal(prepared.permit.message);
        if (prepared.operator_authorization) {
          expect(checked.operatorAuthorization!.message).to.deep.equal(prepared.operator_authorization.message);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("one field of the answer changed is refused, naming that field, unless the service is the one to choose it", function () {
    fc.assert(
      fc.property(request, fc.nat(), fc.nat({ max: 14 }), (r, pick, salt) => {
        const { prepared, expectations } = scenario(r);
        const paths = leaves(prepared);
        const path = paths[pick % paths.length];
        const altered = structuredClone(prepared);
        set(altered, path, changed(get(prepared, path), salt));
        const checked = checkPrepared(altered, expectations);
        if (SERVICE_CHOSEN.has(path)) {
          expect(checked, path).to.not.have.property("problems");
          return;
        }
        expect(checked, path).to.have.property("problems");
        const problems = (checked as { problems: string[] }).problems;
        expect(problems.length, path).to.be.greaterThan(0);
        // The named field: the path itself, its part's types or primary type, or the top-level field it must equal.
        // A top-level field (chain_id, router...) the wallet did not pin is the reference the parts are held to.
        const [part] = path.split(".");
        const named =
          !path.includes(".") ||
          problems.some(
            (problem) =>
              problem.startsWith(path) ||
              problem.startsWith(`${part}.types`) ||
              problem.startsWith(`${part}.primaryType`) ||
              problem.startsWith(`${part}.message has fields`) ||
              problem.startsWith(`${part}.domain has fields`) ||
              /^(nonce|deadline) is /.test(problem),
          );
        expect(named, `${path}: ${problems.join("; ")}`).to.equal(true);
      }),
      { numRuns: 1000 },
    );
  });
});
