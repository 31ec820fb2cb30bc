/**
 * Every figure the hostile-input run checks, in one place; docs/limits.md ("Generated hostile input in CI") gives
 * the same values. A run breaks a bound when anything it sends gets an answer outside these.
 */
export const BOUNDS = {
  /** Longest an ordinary request may take to answer (document, bad input, refusal). */
  answerMs: 2_000,
  /** Longest a refused huge body may take, from its first byte to the refusal. */
  hugeBodyAnswerMs: 5_000,
  /** Longest a `/health` probe, sent every healthEveryMs all through the run, may take. */
  healthMs: 1_000,
  healthEveryMs: 250,
  /** Most resident memory (VmRSS) of the API process at any sample, sampled every rssEveryMs. */
  rssMb: 800,
  rssEveryMs: 100,
  /** Most the API's RSS may grow while a huge chunked body is refused (it must not be buffered). */
  hugeBodyRssGrowthMb: 64,
  /** Largest body every HTTP route takes; one byte more is 413. */
  bodyBytes: 64 * 1024,
  /** Largest graphql-ws message; a larger frame closes the socket with 1009 (or 1008). */
  graphqlWsMessageBytes: 64 * 1024,
  /** Largest /ws message; a larger frame closes the socket with 1009. */
  wsMessageBytes: 4 * 1024,
  /** /ws sockets one anonymous IP may hold (the rest are refused at the upgrade with 429). */
  wsSocketsPerIp: 20,
  /** graphql-ws sockets one IP may hold. */
  graphqlWsSocketsPerIp: 100,
  /** After a sequence (or a flood) ends, the socket answers a ping or is closed within this. */
  socketSettleMs: 2_000,
  floodSettleMs: 10_000,
} as const;

/**
 * Close codes a socket may end with: the protocols' own refusals (1000 normal, 1001 going away, 1008 policy,
 * 1009 too big) and this service's and graphql-ws' 4xxx refusals. 1006 (no close frame), 1011 and 4500 (server
 * errors) are failures.
 */
export const ALLOWED_CLOSE_CODES = new Set([
  1000, 1001, 1008, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4413, 4429, 4499,
]);

/** How much is sent; HOSTILE_SCALE multiplies the generated counts (CI runs 1). */
export const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);
export const VOLUME = {
  validDocuments: Math.round(1_000 * SCALE),
  invalidDocuments: Math.round(600 * SCALE),
  shapedDocuments: Math.round(200 * SCALE),
  fanOutDocuments: Math.round(40 * SCALE),
  batches: Math.round(40 * SCALE),
  graphqlWsSequences: Math.round(300 * SCALE),
  wsSequences: Math.round(400 * SCALE),
  /** Chunked body sent to POST /graphql to see it refused before it is buffered. */
  hugeBodyMb: Number(process.env.HOSTILE_HUGE_BODY_MB ?? 200),
  /** /ws flood: this many messages of about 4 KB on one socket, on each of floodSockets sockets. */
  wsFloodMessages: Math.round(50_000 * SCALE),
  floodSockets: 2,
  /** graphql-ws flood: pings and subscribe/complete pairs on one socket. */
  graphqlWsFloodMessages: Math.round(10_000 * SCALE),
  /** Oversized frames sent to graphql-ws (bytes). */
  graphqlWsOversized: [128 * 1024, 16 * 1024 * 1024],
  /** Requests in flight at once while documents are sent. */
  concurrency: 4,
} as const;
