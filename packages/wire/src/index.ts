/**
 * The NAP wire contract: what crosses the network between the service and its clients. The request and response
 * schemas of the live API (`./live`) and the data API (`./data`), the stable error codes (`./codes`) and the text of
 * a refused request (`./messages`). It depends on zod and ethers only, never on the service.
 */
export * as data from "./data";
export * as live from "./live";
export * from "./codes";
export * from "./idempotency";
export * from "./messages";
export * from "./text";
export * from "./version";
