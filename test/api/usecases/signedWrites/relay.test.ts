import { expect } from "chai";
import fc from "fast-check";
import { mock } from "node:test";
import type { ChainAccess } from "../../../../api/src/chain";
import { AppError } from "../../../../api/src/errors";
import { dataErrorAnswer } from "../../../../api/src/doors/data/errors";
import { createLogger } from "../../../../api/src/logger";
import {
  FINAL_STATES,
  TxRevertedError,
  type TxEngine,
  type TxJournalEntry,
  type TxState,
} from "../../../../api/src/tx";
import { Relays, relayKey } from "../../../../api/src/usecases/signedWrites/relay";
import type { Intent } from "../../../../api/src/domain/signedWrites";

/**
 * The relay as the status read shows it, from the journal entry of its intent key, through every state an entry
 * moves through; and the engine's refusals before any hash, in the data API's codes.
 */

const RELAY_ID = `0x${"ab".repeat(32)}`;
const OWNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
const VAULT = "0x851356ae760d987E095750cCeb3bC6014560891C";
const HASH = `0x${"cd".repeat(32)}`;

const entry = (over: Partial<TxJournalEntry>): TxJournalEntry => ({
  intentKey: relayKey(RELAY_ID),
  wallet: { kind: "relayer" },
  from: "0x0000000000000000000000000000000000000001",
  chainId: 31337,
  to: "0x0000000000000000000000000000000000000002",
  data: "0x",
  value: "0",
  kind: "signed.deposit",
  requestor: OWNER.toLowerCase(),
  meta: { relay_id: RELAY_ID, action: "deposit", vault: VAULT, owner: OWNER },
  after: null,
  state: "intent",
  nonce: null,
  hash: null,
  rawTx: null,
  replacedHashes: [],
  blockNumber: null,
  gasUsed: null,
  status: null,
  error: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...over,
});

/** A chain whose node knows no receipt (the result then stays null). */
const chain = { rpc: { send: async () => null } } as unknown as ChainAccess;
const logger = createLogger("silent");

const intent: Intent = {
  action: "deposit",
  owner: OWNER,
  vault: VAULT,
  amount: 1n,
  receiver: OWNER,
  minimum: 0n,
  nonce: 1n,
  deadline: 2n,
};

describe("signed writes: the relay's status from its journal entry", function () {
  it("submitted while open, confirmed when mined with status 1, failed otherwise, with the error's data API code", async function () {
    const relays = new Relays(chain, {} as TxEngine, logger);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<TxState>("intent", "signed", "broadcast", "mined", "failed"),
        fc.constantFrom(0, 1),
        fc.constantFrom("InvalidSignature", "NonceAlreadyUsed", "SharesBelowMinimum"),
        async (state, status, revert) => {
          const mined = state === "mined";
          const view = await relays.view(
            RELAY_ID,
            entry({
              state,
              hash: state === "intent" ? null : HASH,
              blockNumber: mined ? 61 : null,
              status: mined ? status : null,
              error:
                state === "failed" || (mined && status === 0)
                  ? { code: "TX_REVERTED", message: "reverted", details: { revert: { name: revert } } }
                  : null,
            }),
          );
          const expected = !FINAL_STATES.includes(state) ? "submitted" : mined && status === 1 ? "confirmed" : "failed";
          expect(view.status).to.equal(expected);
          expect(view.block_number).to.equal(mined ? 61 : null);
          expect(view.result).to.equal(null);
          const codes: Record<string, string> = {
            InvalidSignature: "INVALID_SIGNATURE",
            NonceAlreadyUsed: "NONCE_USED",
          };
          const code = codes[revert];
          expect(view.error).to.deep.equal(
            expected === "failed" ? { code: code ?? "TRANSACTION_REVERTED", message: "reverted" } : null,
          );
          expect([view.relay_id, view.action, view.vault, view.owner]).to.deep.equal([
            RELAY_ID,
            "deposit",
            VAULT,
            OWNER,
          ]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a revert at estimation (before any hash) answers the router's reason under its code, nothing left pending", async function () {
    const refused = TxRevertedError.create(
      { name: "NonceAlreadyUsed", signature: "NonceAlreadyUsed(address,uint256)", selector: "0x1fb09b80", args: {} },
      "NonceAlreadyUsed",
    );
    const engine = {
      send: () => Promise.reject(refused),
      lookup: async () => entry({ state: "failed", error: { code: "TX_REVERTED", message: "reverted" } }),
    } as unknown as TxEngine;
    const relays = new Relays(chain, engine, logger);
    const thrown = await relays.send(RELAY_ID, VAULT, intent, { signature: "0x1234" }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(thrown).to.be.instanceOf(AppError);
    const answer = dataErrorAnswer(thrown);
    expect([answer.status, answer.code]).to.deep.equal([409, "NONCE_USED"]);
    expect(answer.message).to.equal(
      "the router would revert with NonceAlreadyUsed: the contract rejected the transaction: NonceAlreadyUsed",
    );
    await relays.settled();
  });

  it("attack: a transaction that never gets its hash does not hold the request open: answered without a hash once the 30 s wait has passed, not before", async function () {
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const engine = {
      send: () => stuck.then(() => ({})),
      lookup: async () => entry({ state: "intent" }),
    } as unknown as TxEngine;
    // The wait is measured on Date.now and polled by setTimeout: both on a clock the test moves.
    mock.timers.enable({ apis: ["Date", "setTimeout"], now: 0 });
    try {
      const relays = new Relays(chain, engine, logger);
      let answered: TxJournalEntry | null | undefined;
      const sending = relays.send(RELAY_ID, VAULT, intent, { signature: "0x1234" }).then((entry) => (answered = entry));
      const advanceTo = async (ms: number) => {
        while (Date.now() < ms && answered === undefined) {
          await new Promise((resolve) => setImmediate(resolve));
          mock.timers.tick(Math.min(25, ms - Date.now()));
        }
        await new Promise((resolve) => setImmediate(resolve));
      };
      await advanceTo(30_000);
      expect(answered, "still waiting at 30 s").to.equal(undefined);
      await advanceTo(30_100);
      await sending;
      expect([answered?.state, answered?.hash]).to.deep.equal(["intent", null]);
    } finally {
      mock.timers.reset();
    }
    release();
  });

  it("answers with the entry as soon as the transaction has its hash, the receipt awaited in the background", async function () {
    let lookups = 0;
    let release: () => void = () => undefined;
    const mined = new Promise<void>((resolve) => (release = resolve));
    const engine = {
      send: () => mined.then(() => ({})),
      lookup: async () => (++lookups < 3 ? entry({ state: "intent" }) : entry({ state: "broadcast", hash: HASH })),
    } as unknown as TxEngine;
    const relays = new Relays(chain, engine, logger);
    const answered = await relays.send(RELAY_ID, VAULT, intent, { signature: "0x1234" });
    expect([answered?.state, answered?.hash]).to.deep.equal(["broadcast", HASH]);
    release();
    await relays.settled();
  });
});
