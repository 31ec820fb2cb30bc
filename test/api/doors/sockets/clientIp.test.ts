import { expect } from "chai";
import fc from "fast-check";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import Koa from "koa";
import { clientIp } from "../../../../api/src/doors/sockets/clientIp";

/** An upgrade request as Node gives it: headers and a socket with a remote address. */
function request(remoteAddress: string | undefined, forwardedFor: string | undefined): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, "remoteAddress", { value: remoteAddress });
  const message = new IncomingMessage(socket);
  message.method = "GET";
  message.url = "/ws";
  if (forwardedFor !== undefined) message.headers["x-forwarded-for"] = forwardedFor;
  return message;
}

/** What Koa answers for `ctx.ip` with the app set up as app.ts sets it. */
function koaIp(message: IncomingMessage, trustedProxyCount: number): string {
  const app = new Koa();
  app.proxy = trustedProxyCount > 0;
  app.maxIpsCount = trustedProxyCount;
  return app.createContext(message, new ServerResponse(message)).ip;
}

describe("socket doors: the client IP and the owner counts", () => {
  it("reads an upgrade's client IP exactly as Koa reads ctx.ip, for any X-Forwarded-For and trusted hop count", () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom("", "unknown", " 10.0.0.1 ", "::ffff:127.0.0.1"));
    const spacing = fc.constantFrom(",", ", ", " , ", ",  ");
    const header = fc.option(
      fc.tuple(fc.array(address, { maxLength: 5 }), spacing).map(([ips, separator]) => ips.join(separator)),
      { nil: undefined },
    );
    fc.assert(
      fc.property(fc.option(fc.ipV4(), { nil: undefined }), header, fc.nat(4), (remote, forwarded, hops) => {
        const message = request(remote, forwarded);
        expect(clientIp(message, hops)).to.equal(koaIp(message, hops));
      }),
      { numRuns: 500 },
    );
  });

  it("believes only the trusted hops nearest the server: a spoofed first entry is not the client", () => {
    const spoofed = request("10.0.0.9", "6.6.6.6, 203.0.113.7");
    expect(clientIp(spoofed, 1)).to.equal("203.0.113.7");
    expect(clientIp(spoofed, 2)).to.equal("6.6.6.6");
    expect(clientIp(spoofed, 0)).to.equal("10.0.0.9");
  });
});
