import { expect } from "chai";
import fc from "fast-check";
import { ipOwner, keyOwner, OwnerCaps, ownerOf, SocketCaps } from "../../../../api/src/doors/sockets/caps";

/** The caps both socket doors count with (GraphQL subscriptions and /ws). */
describe("socket caps", () => {
  it("counts per owner and forgets an owner whose last socket closed", () => {
    const caps = new OwnerCaps(5, 5);
    expect(caps.take(ipOwner("1.2.3.4"))).to.equal(true);
    expect(caps.take(ipOwner("1.2.3.4"))).to.equal(true);
    expect(caps.take(keyOwner("k1"))).to.equal(true);
    expect([caps.count(ipOwner("1.2.3.4")), caps.count(keyOwner("k1")), caps.count(ipOwner("9.9.9.9"))]).to.deep.equal([
      2, 1, 0,
    ]);
    caps.release(ipOwner("1.2.3.4"));
    caps.release(ipOwner("1.2.3.4"));
    caps.release(keyOwner("k1"));
    expect([caps.count(ipOwner("1.2.3.4")), caps.count(keyOwner("k1"))]).to.deep.equal([0, 0]);
  });

  it("keeps an IP and a key of the same text apart, each under its own cap", () => {
    const caps = new OwnerCaps(1, 2);
    expect(caps.take(ipOwner("same"))).to.equal(true);
    expect(caps.take(ipOwner("same"))).to.equal(false);
    expect(caps.take(keyOwner("same"))).to.equal(true);
    expect(caps.take(keyOwner("same"))).to.equal(true);
    expect(caps.take(keyOwner("same"))).to.equal(false);
    expect([caps.capOf(ipOwner("x")), caps.capOf(keyOwner("x"))]).to.deep.equal([1, 2]);
  });

  it("counts an operation against the key when there is one, else against the IP", () => {
    expect(ownerOf("10.0.0.1", undefined)).to.deep.equal({ kind: "ip", id: "10.0.0.1" });
    expect(ownerOf("10.0.0.1", "dk_1")).to.deep.equal({ kind: "key", id: "dk_1" });
  });

  it("attack: keys multiply the per-IP socket budget: a socket with a key still counts against its IP", () => {
    const caps = new SocketCaps(2, 50);
    const first = caps.openForIp("10.0.0.1");
    const second = caps.openForIp("10.0.0.1");
    expect(caps.openForIp("10.0.0.1")).to.equal(null);
    const keyed = caps.addKey(first!, "dk_1");
    expect(keyed).to.deep.equal({ ip: "10.0.0.1", keyId: "dk_1" });
    expect([caps.ipCount("10.0.0.1"), caps.keyCount("dk_1")]).to.deep.equal([2, 1]);
    expect(caps.ipHasRoom("10.0.0.1")).to.equal(false);
    caps.close(keyed!);
    expect([caps.ipCount("10.0.0.1"), caps.keyCount("dk_1")]).to.deep.equal([1, 0]);
    caps.close(second!);
    expect(caps.ipCount("10.0.0.1")).to.equal(0);
  });

  it("attack: one key spread over many addresses is bounded by the key's cap", () => {
    const caps = new SocketCaps(100, 3);
    const holders = ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"].map((ip) => caps.openForIp(ip)!);
    const keyed = holders.map((holder) => caps.addKey(holder, "dk_1"));
    expect(keyed.map((holder) => holder?.keyId ?? null)).to.deep.equal(["dk_1", "dk_1", "dk_1", null]);
    expect(caps.keyHasRoom("dk_1")).to.equal(false);
    // The refused key left the fourth socket counted against its IP only.
    expect(caps.ipCount("4.4.4.4")).to.equal(1);
  });

  it("never lets an owner past its cap, and gives back exactly what was taken, in any order of opens and closes (property)", () => {
    const step = fc.oneof(
      fc.record({
        op: fc.constant("open" as const),
        ip: fc.constantFrom("a", "b"),
        key: fc.option(fc.constantFrom("k", "j")),
      }),
      fc.record({ op: fc.constant("close" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { maxLength: 60 }),
        (perIp, perKey, steps) => {
          const caps = new SocketCaps(perIp, perKey);
          const open: { ip: string; keyId?: string }[] = [];
          for (const s of steps) {
            if (s.op === "open") {
              const holder = caps.openForIp(s.ip);
              if (!holder) {
                expect(open.filter((h) => h.ip === s.ip)).to.have.length(perIp);
                continue;
              }
              open.push(s.key === null ? holder : (caps.addKey(holder, s.key) ?? holder));
            } else if (open.length > 0) {
              caps.close(open.splice(s.pick % open.length, 1)[0]);
            }
            for (const ip of ["a", "b"]) {
              const held = open.filter((h) => h.ip === ip).length;
              expect(caps.ipCount(ip)).to.equal(held);
              expect(held).to.be.at.most(perIp);
            }
            for (const key of ["k", "j"]) {
              const held = open.filter((h) => h.keyId === key).length;
              expect(caps.keyCount(key)).to.equal(held);
              expect(held).to.be.at.most(perKey);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
