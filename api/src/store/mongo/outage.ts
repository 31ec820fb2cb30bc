import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type MongoClientOptions,
} from "mongodb";
import { StoreUnavailableError } from "../../errors";

/**
 * How the MongoDB adapter meets a store that is away: the driver gives up within about a second, and its "cannot
 * reach the server" errors become one StoreUnavailableError, which every door answers as 503 with Retry-After. The
 * driver reconnects by itself (its monitor keeps probing), so the service recovers without a restart.
 */

/**
 * Driver settings for a store that stops answering:
 * - serverSelectionTimeoutMS: an operation waits this long for a reachable server before it fails (default 30 s);
 * - connectTimeoutMS: a new connection, and the monitor's probe, give up after this long; a probe that fails clears
 *   the pool and fails the operations in flight, so this stays well above what a busy store takes to answer one;
 * - heartbeatFrequencyMS: the monitor probes this often, so a hung server (no reset, no answer) is noticed within
 *   about heartbeat + connect timeout, and the operations waiting on its connections are interrupted;
 * - socketTimeoutMS: the last resort for a server that still answers the monitor but not an operation (FerretDB's
 *   SQLite handler can stay so after a stop and continue); long enough not to cut off a slow query under load.
 */
export const STORE_OUTAGE_SETTINGS: Readonly<
  Required<
    Pick<
      MongoClientOptions,
      "serverSelectionTimeoutMS" | "connectTimeoutMS" | "heartbeatFrequencyMS" | "socketTimeoutMS"
    >
  >
> = {
  serverSelectionTimeoutMS: 1_000,
  connectTimeoutMS: 2_000,
  heartbeatFrequencyMS: 1_000,
  socketTimeoutMS: 20_000,
};

/** True when the driver could not reach the server (as opposed to the server refusing the operation). */
export function isStoreUnreachable(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    isWrappedNetworkError(error)
  );
}

/**
 * insertMany and bulkWrite report a dropped connection as a MongoBulkWriteError without write errors, into which the
 * driver copies the network error's own fields (`beforeHandshake` is one only network errors have).
 */
function isWrappedNetworkError(error: unknown): boolean {
  if (!(error instanceof MongoBulkWriteError) || !("beforeHandshake" in error)) return false;
  const writeErrors: unknown = error.writeErrors;
  return Array.isArray(writeErrors) && writeErrors.length === 0;
}

function asStoreError(error: unknown): unknown {
  return isStoreUnreachable(error) ? new StoreUnavailableError(error) : error;
}

/**
 * The adapter with every method's "cannot reach the server" failure turned into StoreUnavailableError; other errors
 * (duplicate keys, the server's own refusals) pass unchanged. Methods run on the adapter itself, so its private
 * fields work.
 */
export function guardStoreOutages<T extends object>(adapter: T): T {
  const guarded = new Map<PropertyKey, unknown>();
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || property === "constructor") return value;
      let method = guarded.get(property);
      if (method === undefined) {
        const original = value as (...args: unknown[]) => unknown;
        method = (...args: unknown[]) => {
          let result: unknown;
          try {
            result = original.apply(target, args);
          } catch (error) {
            throw asStoreError(error);
          }
          if (result instanceof Promise) {
            return result.catch((error: unknown) => {
              throw asStoreError(error);
            });
          }
          return result;
        };
        guarded.set(property, method);
      }
      return method;
    },
  });
}
