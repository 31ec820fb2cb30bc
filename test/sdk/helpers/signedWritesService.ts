import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { INTENT_TYPES, OPERATOR_TYPES, PERMIT_TYPES, type TypedData } from "@nap/sdk";

/**
 * A stand-in for the data API's signed-write routes as the design gives them (prepare, submit, relay), answering
 * typed data the way the service does; `alter` lets a test play a hostile service that changes what it answers.
 * It records every request, so a test can assert that nothing was submitted.
 */

export const CHAIN_ID = 31337;
export const ROUTER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
export const VAULT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
export const ASSET = "0x9fe46736679d2D9a65F0992f3F2a3b7C27c8c8e6";
export const NONCE = "81985529216486895";
export const RELAY_ID = `0x${"ab".repeat(32)}`;

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | undefined;
}

export interface FakeService {
  url: string;
  requests: Recorded[];
  /** The submits' bodies. */
  submitted(): Record<string, unknown>[];
  close(): Promise<void>;
}

const PRIMARY: Record<string, keyof typeof INTENT_TYPES> = {
  deposit: "Deposit",
  redeem: "Redeem",
  "request-redeem": "RequestRedeem",
  claim: "Claim",
  "cancel-redeem": "CancelRedeem",
};

const MESSAGE_FIELDS: Record<string, string> = {
  amount: "assets",
  shares: "shares",
  receiver: "receiver",
  min_shares: "minShares",
  min_assets: "minAssets",
};

export interface FakeOptions {
  /** Seconds now. */
  now: number;
  /** Changes the prepared answer before it is sent (a hostile service). */
  alter?: (prepared: Prepared) => void;
  /** The relay's states, one per read (the last one repeats). */
  relays?: Record<string, unknown>[];
  /** Whether a deposit answer carries a permit and a redemption one an operator authorisation (default yes). */
  extras?: boolean;
}

export interface Prepared {
  action: string;
  vault: string;
  chain_id: number;
  router: string;
  nonce: string;
  deadline: string;
  intent: TypedData;
  permit: TypedData | null;
  operator_authorization: TypedData | null;
}

export function prepare(segment: string, vault: string, query: Record<string, string>, now: number, extras = true) {
  const primaryType = PRIMARY[segment];
  const deadline = String(now + 1800);
  const given: Record<string, string> = { receiver: query.owner, min_shares: "0", min_assets: "0", ...query };
  const message: Record<string, unknown> = { owner: query.owner, vault, nonce: NONCE, deadline };
  for (const [wire, field] of Object.entries(MESSAGE_FIELDS)) {
    if (INTENT_TYPES[primaryType].some((f) => f.name === field)) message[field] = given[wire];
  }
  const ordered = Object.fromEntries(INTENT_TYPES[primaryType].map(({ name }) => [name, message[name]]));
  const prepared: Prepared = {
    action: segment,
    vault,
    chain_id: CHAIN_ID,
    router: ROUTER,
    nonce: NONCE,
    deadline,
    intent: {
      domain: { name: "NAP Router", version: "1", chainId: CHAIN_ID, verifyingContract: ROUTER },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        [primaryType]: INTENT_TYPES[primaryType].map((f) => ({ ...f })),
      },
      primaryType,
      message: ordered,
    },
    permit: null,
    operator_authorization: null,
  };
  if (extras && segment === "deposit") {
    prepared.permit = {
      domain: { name: "Test USDC", version: "1", chainId: CHAIN_ID, verifyingContract: ASSET },
      types: { Permit: PERMIT_TYPES.Permit.map((f) => ({ ...f })) },
      primaryType: "Permit",
      message: { owner: query.owner, spender: ROUTER, value: query.amount, nonce: "0", deadline },
    };
  } else if (extras) {
    prepared.operator_authorization = {
      domain: { name: "NAP Moderate USDC", version: "1", chainId: CHAIN_ID, verifyingContract: vault },
      types: { AuthorizeOperator: OPERATOR_TYPES.AuthorizeOperator.map((f) => ({ ...f })) },
      primaryType: "AuthorizeOperator",
      message: { controller: query.owner, operator: ROUTER, approved: true, nonce: `0x${"cd".repeat(32)}`, deadline },
    };
  }
  return prepared;
}

export async function fakeService(options: FakeOptions): Promise<FakeService> {
  const requests: Recorded[] = [];
  const relays = [...(options.relays ?? [])];
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fake");
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      requests.push({
        method: request.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: request.headers,
        body,
      });
      const send = (status: number, answer: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(answer));
      };
      const typed = /^\/v1\/vaults\/([^/]+)\/([a-z-]+)\/typed-data$/.exec(url.pathname);
      const submit = /^\/v1\/vaults\/([^/]+)\/([a-z-]+)$/.exec(url.pathname);
      const relay = /^\/v1\/relays\/(0x[0-9a-f]{64})$/.exec(url.pathname);
      if (typed && request.method === "GET") {
        const prepared = prepare(
          typed[2],
          typed[1],
          Object.fromEntries(url.searchParams),
          options.now,
          options.extras ?? true,
        );
        options.alter?.(prepared);
        return send(200, prepared);
      }
      if (submit && request.method === "POST") {
        return send(202, {
          relay_id: RELAY_ID,
          status: "submitted",
          tx_hash: `0x${"ef".repeat(32)}`,
          status_url: `/v1/relays/${RELAY_ID}`,
        });
      }
      if (relay && request.method === "GET") return send(200, relays.length > 1 ? relays.shift() : relays[0]);
      if (url.pathname === "/v1/vaults/moderate" || url.pathname === `/v1/vaults/${VAULT}`) {
        return send(200, { address: VAULT, asset: ASSET, name: "NAP Moderate USDC" });
      }
      send(404, { error: { code: "NOT_FOUND", message: `no route ${url.pathname}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    submitted: () => requests.filter((r) => r.method === "POST").map((r) => r.body!),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
