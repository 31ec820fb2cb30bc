import { expect } from "chai";
import fc from "fast-check";
import type { DecodedEvent } from "../../../api/src/chain/events";
import { indexedEvent, isAddressText } from "../../../api/src/indexer/facts";

/** The record as the indexer first built it (Object.entries, a regex per argument, a Set): the values to keep. */
function referenceRecord(chainId: number, event: DecodedEvent, block: { hash: string; timestamp: number }) {
  const safe = (value: unknown): unknown => {
    if (typeof value === "bigint") return value.toString();
    if (Array.isArray(value)) return value.map(safe);
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, safe(inner)]));
    }
    return value;
  };
  const self = event.address.toLowerCase();
  const users = new Set<string>();
  for (const value of Object.values(event.args)) {
    if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) continue;
    const address = value.toLowerCase();
    if (address !== "0x0000000000000000000000000000000000000000" && address !== self) users.add(address);
  }
  return {
    id: `${chainId}:${event.transactionHash.toLowerCase()}:${event.index}`,
    chainId,
    block: event.blockNumber,
    blockHash: block.hash,
    timestamp: block.timestamp,
    transactionHash: event.transactionHash.toLowerCase(),
    logIndex: event.index,
    contract: event.contract,
    address: self,
    name: event.name,
    args: safe(event.args),
    users: [...users],
  };
}

const hexDigits = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: length, maxLength: length });
/** Addresses in any case, the zero address, and texts that are nearly addresses (a digit short, a letter past f). */
const addressLike = fc.oneof(
  hexDigits(40).map((digits) => `0x${digits}`),
  fc.constant("0x0000000000000000000000000000000000000000"),
  hexDigits(39).map((digits) => `0x${digits}`),
  hexDigits(41).map((digits) => `0x${digits}`),
  fc
    .tuple(hexDigits(39), fc.constantFrom("g", "G", "/", ":", "@", "`", " ", "é", "\x10", "\x16", "\x19", "\u0141"))
    .map(([d, c]) => `0x${d}${c}`),
  hexDigits(40).map((digits) => `0X${digits}`),
  fc.string(),
);

const argValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    addressLike,
    fc.bigInt(),
    fc.boolean(),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 3 }),
  ),
})).value;

describe("indexer facts (records of decoded logs)", function () {
  it("tells an address text as the regex /^0x[0-9a-fA-F]{40}$/ does", function () {
    fc.assert(
      fc.property(addressLike, (text) => {
        expect(isAddressText(text)).to.equal(/^0x[0-9a-fA-F]{40}$/.test(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it("builds the record the first implementation built, for any arguments", function () {
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constant("__proto__")), argValue, { maxKeys: 6 }),
        addressLike,
        hexDigits(64),
        (args, address, hash) => {
          const event: DecodedEvent = {
            contract: "NapVault:moderate",
            address,
            name: "Deposit",
            args,
            blockNumber: 12,
            transactionHash: `0x${hash}`,
            index: 4,
          };
          const block = { hash: "0xbb", timestamp: 1_800_000_000 };
          const record = indexedEvent(31337, event, block);
          expect(record).to.deep.equal(referenceRecord(31337, event, block));
          expect(Object.keys(record.args)).to.deep.equal(Object.keys(args));
        },
      ),
      { numRuns: 600 },
    );
  });
});
