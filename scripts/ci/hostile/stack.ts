import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "../../../test/e2e/processes";
import { BOUNDS } from "./bounds";
import type { Record } from "./record";

/**
 * The stack a hostile-input run attacks (a Hardhat node with the system deployed, the API on a free loopback port)
 * and the watch kept on it all through the run: a worker thread probes `/health` and samples the API process' RSS,
 * so that the figures are not delayed by the run's own work on the main thread. A process that exits or stops
 * answering is a violation; it is started again so that the other doors are still attacked.
 */

export const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";

/** The watcher, as plain JavaScript run in a worker thread: one /health probe at a time, one RSS sample per tick. */
const WATCHER = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const http = require("node:http");
let target = workerData;
parentPort.on("message", (next) => { target = next; });
function rssMb(pid) {
  try {
    const line = readFileSync("/proc/" + pid + "/status", "utf8").split("\\n").find((l) => l.startsWith("VmRSS:"));
    return line ? Number(line.split(/\\s+/)[1]) / 1024 : null;
  } catch { return null; }
}
setInterval(() => {
  const mb = rssMb(target.pid);
  if (mb !== null) parentPort.postMessage({ kind: "rss", mb, pid: target.pid });
}, target.rssEveryMs);
function probe() {
  const started = performance.now();
  const sentAt = Date.now();
  const url = target.url;
  let settled = false;
  const done = (status) => {
    if (settled) return;
    settled = true;
    parentPort.postMessage({ kind: "health", ms: performance.now() - started, status, url, at: sentAt });
    setTimeout(probe, target.healthEveryMs);
  };
  const req = http.get(url + "/health", { agent: false, timeout: target.timeoutMs }, (res) => {
    res.resume();
    res.once("end", () => done(res.statusCode));
    res.once("error", () => done(0));
  });
  req.once("timeout", () => { req.destroy(); done(-1); });
  req.once("error", () => done(0));
}
probe();
`;

export interface HealthStats {
  probes: number;
  slowMs: number[];
  maxMs: number;
  failures: number;
}

export class Stack {
  api!: Spawned;
  private node!: Spawned;
  private work = "";
  private watcher?: Worker;
  key = "";
  /** A data key holding only nodes:read, which no GraphQL root field and no socket subscription accepts. */
  narrowKey = "";
  vaults: string[] = [];
  peakRssMb = 0;
  baselineRssMb = 0;
  restarts = 0;
  readonly health: HealthStats = { probes: 0, slowMs: [], maxMs: 0, failures: 0 };
  private timeline: Array<{ at: number; category: string }> = [{ at: 0, category: "start" }];

  /** The category running now, named in the violations the watcher finds. */
  get category(): string {
    return this.timeline[this.timeline.length - 1].category;
  }

  set category(category: string) {
    this.timeline.push({ at: Date.now(), category });
  }

  /** The category that was running at `at` (a probe is named after what ran when it was sent). */
  private categoryAt(at: number): string {
    for (let i = this.timeline.length - 1; i >= 0; i--) if (this.timeline[i].at <= at) return this.timeline[i].category;
    return "start";
  }
  private reportedRss = new Set<string>();
  private reportedHealth = new Set<string>();
  private expectedExit = false;

  constructor(private readonly record: Record) {}

  get url(): string {
    return this.api.url;
  }

  get wsUrl(): string {
    return this.api.url.replace(/^http/, "ws");
  }

  async start(): Promise<void> {
    this.work = mkdtempSync(join(tmpdir(), "nap-hostile-"));
    const started = Date.now();
    const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    this.node = await spawnHardhatNode();
    console.log(`  Hardhat node at ${this.node.url} (${took()})`);
    await deployTo(this.node.url, this.work);
    console.log(`  system deployed (${took()})`);
    await this.startApi();
    console.log(`  API listening (${took()})`);
  }

  private async startApi(): Promise<void> {
    this.api = await spawnApi({
      RPC_URL: this.node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(this.work, "31337.json"),
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      // Generated input should reach the handlers, not stop at 429 (the caps on sockets stay).
      RATE_LIMITS_DISABLED: "true",
      LOG_LEVEL: "error",
    });
    this.expectedExit = false;
    this.api.child.once("exit", (code, signal) => {
      if (this.expectedExit) return;
      this.record.violation({
        door: "process",
        category: this.category,
        kind: "process exit",
        what: `the API process exited (${signal ?? `code ${code}`}): ${this.api.output.join("").slice(-600)}`,
      });
    });
    const target = {
      pid: this.api.child.pid,
      url: this.api.url,
      healthEveryMs: BOUNDS.healthEveryMs,
      rssEveryMs: BOUNDS.rssEveryMs,
      timeoutMs: 5_000,
    };
    if (this.watcher) this.watcher.postMessage(target);
    else {
      this.watcher = new Worker(WATCHER, { eval: true, workerData: target });
      this.watcher.on(
        "message",
        (sample: { kind: string; mb: number; ms: number; status: number; url: string; at: number }) =>
          sample.kind === "rss"
            ? this.onRss(sample.mb)
            : this.onHealth(sample.ms, sample.status, sample.url, sample.at),
      );
      this.watcher.unref();
    }
  }

  private onRss(mb: number): void {
    this.peakRssMb = Math.max(this.peakRssMb, mb);
    if (mb > BOUNDS.rssMb && !this.reportedRss.has(this.category)) {
      this.reportedRss.add(this.category);
      this.record.violation({
        door: "process",
        category: this.category,
        kind: "memory",
        what: `API RSS ${Math.round(mb)} MB, above the bound of ${BOUNDS.rssMb} MB`,
      });
    }
  }

  private onHealth(ms: number, status: number, url: string, at: number): void {
    if (url !== this.api.url || this.expectedExit) return;
    this.health.probes += 1;
    this.health.maxMs = Math.max(this.health.maxMs, ms);
    this.health.slowMs.push(ms);
    const failed = status !== 200;
    if (failed) this.health.failures += 1;
    const category = this.categoryAt(at);
    if ((failed || ms > BOUNDS.healthMs) && !this.reportedHealth.has(category)) {
      this.reportedHealth.add(category);
      this.record.violation({
        door: "process",
        category,
        kind: "health",
        what: failed
          ? `/health did not answer 200 (${status === -1 ? "no answer within 5 s" : `status ${status}`})`
          : `/health took ${Math.round(ms)} ms, above the bound of ${BOUNDS.healthMs} ms`,
      });
    }
  }

  /** Resident memory of the API process now (MB), or 0 once it is gone. */
  rssNowMb(): number {
    try {
      const status = readFileSync(`/proc/${this.api.child.pid}/status`, "utf8");
      const line = status.split("\n").find((l) => l.startsWith("VmRSS:"));
      return line ? Number(line.split(/\s+/)[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  }

  /**
   * After a request got no answer: is the API still there and answering /health within 3 s? If not (exited, or
   * blocked), the violation is already recorded; the API is started again and true is answered, so that the caller
   * skips the rest of its category.
   */
  async restartIfDown(): Promise<boolean> {
    // Requests in flight together find a down API together: one check and one restart serve them all.
    if (this.checking) return this.checking;
    const generation = this.restarts;
    this.checking = this.checkAndRestart().finally(() => (this.checking = undefined));
    const restarted = await this.checking;
    return restarted || this.restarts !== generation;
  }

  private checking?: Promise<boolean>;

  /** Run after the API is started again: its store starts empty, so the keys are issued anew. */
  afterRestart?: () => Promise<void>;

  private async checkAndRestart(): Promise<boolean> {
    const exited = this.api.child.exitCode !== null || this.api.child.signalCode !== null;
    if (!exited && (await this.answersHealth(3_000))) return false;
    if (!exited) {
      this.record.violation({
        door: "process",
        category: this.category,
        kind: "blocked",
        what: "the API stopped answering /health for more than 3 s; killed and started again",
      });
    }
    this.expectedExit = true;
    await kill(this.api.child);
    this.restarts += 1;
    console.log("  (starting the API again)");
    await this.startApi();
    await this.afterRestart?.();
    return true;
  }

  answersHealth(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const req = request(`${this.api.url}/health`, { agent: false, timeout: timeoutMs }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.once("timeout", () => (req.destroy(), resolve(false)));
      req.once("error", () => resolve(false));
      req.end();
    });
  }

  async stop(): Promise<void> {
    this.expectedExit = true;
    await this.watcher?.terminate();
    // A blocked API cannot run its SIGTERM handler: it gets 5 s, then SIGKILL.
    if (this.api) {
      const forced = setTimeout(() => this.api.child.kill("SIGKILL"), 5_000);
      await kill(this.api.child, "SIGTERM");
      clearTimeout(forced);
    }
    if (this.node) await kill(this.node.child);
    if (this.work) rmSync(this.work, { recursive: true, force: true });
  }

  setEndpoints(endpoints: { key: string; narrowKey: string; vaults: string[] }): void {
    this.key = endpoints.key;
    this.narrowKey = endpoints.narrowKey;
    this.vaults = endpoints.vaults;
  }
}
