import { createServer } from "node:net";
import type { Config } from "./config";

/**
 * Ports checked before anything starts, so that a busy one is named with the setting that moves it, instead of a
 * raw EADDRINUSE after the store, the chain and (under `npm start`) a whole deployment were set up.
 */

export interface PortSetting {
  /** The environment variable that sets it. */
  setting: string;
  host: string;
  port: number;
}

/** The ports the service listens on: the API's and, when set, the metrics listener's. */
export function servicePorts(config: Config): PortSetting[] {
  return [
    { setting: "PORT", host: config.host, port: config.port },
    ...(config.metrics ? [{ setting: "METRICS_PORT", host: config.metrics.host, port: config.metrics.port }] : []),
  ];
}

/** The first setting whose port cannot be bound now, or null (port 0, any free port, is never busy). */
export async function findBusyPort(settings: readonly PortSetting[]): Promise<PortSetting | null> {
  for (const setting of settings) {
    if (setting.port !== 0 && !(await canListen(setting.host, setting.port))) return setting;
  }
  return null;
}

export function busyPortMessage({ setting, host, port }: PortSetting): string {
  return `${setting} ${port} is in use on ${host}: stop what listens there or set ${setting}=<another port>`;
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
