import { ConfigError, loadConfig, type Config } from "./config";
import { createLogger } from "./logger";
import { busyPortMessage, findBusyPort, servicePorts } from "./ports";
import { doorUrls, startServer } from "./server";

/**
 * Entry point (`npm run serve` runs its compiled form): read configuration, check the ports, start, and stop
 * gracefully on SIGINT/SIGTERM. Exit codes: 0 after a clean shutdown, 2 for a bad setting or a busy port, 1 otherwise.
 */

/** Past the shutdown's own bound: time to close the store, Redis and the provider before the process gives up. */
const CLOSE_GRACE_MS = 5_000;

async function main(): Promise<void> {
  const config = configOrExit();
  const busy = await findBusyPort(servicePorts(config));
  if (busy) exitWith(2, busyPortMessage(busy));

  const logger = createLogger(config.logLevel);
  const running = await startServer(config, logger);
  logger.info({ doors: doorUrls(running.url, running.metricsUrl) }, "NAP agent API listening");

  const shutdown = (signal: string) => {
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, "shutting down");
    const force = setTimeout(() => {
      logger.error("shutdown did not finish in time; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs + CLOSE_GRACE_MS);
    force.unref();
    running.close().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitWith(2, error.message);
    throw error;
  }
}

function exitWith(code: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

main().catch((error: unknown) => {
  process.stderr.write(`NAP agent API failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
