import { ConfigError, loadConfig } from "./config";
import { createLogger } from "./logger";
import { startServer } from "./server";

/** Entry point: read configuration, start, stop cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, logger);
  logger.info({ url: running.url, docs: `${running.url}/docs` }, "NAP agent API listening");

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`NAP agent API failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
