import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { Deployment } from "../../api/src/chain/deployment";
import { request, startTestApp, type TestApp } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { indexUntilCaughtUp } from "../api/indexer/helpers";
import { deposit, fund, users } from "../api/indexer/activity";

const ROOT = resolve(__dirname, "..", "..");
/** Screenshots of the rendered pages, for a person to look at (not committed). */
const SHOTS = join(ROOT, "build", "screenshots");

/**
 * The reference pages as a person sees them: /docs (the live API), /v1/docs (the data API) and GraphiQL on /graphql,
 * rendered by headless Chromium (Debian's, found by scripts/services/chromium.sh) from what the service serves, under
 * the pages' own CSP. The test reads the rendered DOM, not the HTML sent.
 */
describe("Reference pages in a browser: /docs, /v1/docs and GraphiQL", function () {
  this.timeout(240_000);
  let api: TestApp;
  let deployment: Deployment;
  let browser: Browser;
  let page: Page;
  /** What the page reported: script errors and refused loads (a CSP violation is one). */
  let problems: string[];

  before(async function () {
    deployment = await deployTestSystem();
    api = await startTestApp({ deployment });
    await indexUntilCaughtUp(api.app.indexer!);
    const executablePath = execFileSync("bash", [join(ROOT, "scripts/services/chromium.sh")], { encoding: "utf8" });
    browser = await chromium.launch({ executablePath: executablePath.trim(), args: ["--no-sandbox"] });
    mkdirSync(SHOTS, { recursive: true });
  });

  beforeEach(async function () {
    problems = [];
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("requestfailed", (failed) => problems.push(`failed: ${failed.url()}`));
    // Everything a page loads or calls is this service's own (data: URIs are inline in the CSS).
    page.on("request", (sent) => {
      const url = sent.url();
      const own = [`${api.url}/`, api.url.replace(/^http/, "ws") + "/", "data:"].some((p) => url.startsWith(p));
      if (!own) problems.push(`elsewhere: ${url}`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
  });

  afterEach(async function () {
    await page?.close();
  });

  after(async function () {
    await browser?.close();
    await api?.close();
  });

  it("/docs: the register operation, expanded, shows its request and success examples, no placeholder", async function () {
    await page.goto(`${api.url}/docs`);
    const operation = page.locator("#operations-registration-postApiV1AgentAuthRegister");
    await operation.locator(".opblock-summary").click();
    const success = operation.locator('tr.response[data-code="200"] .microlight').first();
    await success.waitFor();
    const shown = JSON.parse((await success.textContent()) ?? "") as Record<string, unknown>;
    expect(shown).to.include({ success: true, agent_name: "yield-scout", tier: "unverified" });
    expect(shown.api_key).to.match(/^nap-[A-Za-z0-9]{32}$/);
    const requestExample = JSON.parse(
      (await operation.locator(".opblock-section-request-body .microlight").first().textContent()) ?? "",
    ) as Record<string, unknown>;
    expect(requestExample.signature).to.match(/^0x[0-9a-f]{130}$/);
    const text = (await operation.textContent()) ?? "";
    expect(text).to.not.include('"string"');
    expect(text).to.not.include("-9007199254740991");
    expect(await page.locator("a", { hasText: "Data API reference (/v1/docs)" }).getAttribute("href")).to.equal(
      "/v1/docs",
    );
    await operation.screenshot({ path: join(SHOTS, "docs-register.png") });
    expect(problems).to.deep.equal([]);
  });

  it("/v1/docs: the data API reference lists /v1/vaults with its example", async function () {
    await page.goto(`${api.url}/v1/docs`);
    const operation = page.locator("#operations-data-getV1Vaults");
    await operation.waitFor();
    expect(await operation.locator(".opblock-summary-path").textContent()).to.equal("/v1/vaults");
    await operation.locator(".opblock-summary").click();
    const success = operation.locator('tr.response[data-code="200"] .microlight').first();
    await success.waitFor();
    const shown = JSON.parse((await success.textContent()) ?? "") as { vaults: Array<Record<string, unknown>> };
    expect(shown.vaults[0]).to.include({ name: "NAP Aggressive USDC", symbol: "napAGG", isERC7540: true });
    expect(await page.locator("a", { hasText: "Agent API reference (/docs)" }).getAttribute("href")).to.equal("/docs");
    await page.screenshot({ path: join(SHOTS, "data-docs.png"), fullPage: false });
    expect(problems).to.deep.equal([]);
  });

  it("/graphql: a subscription run in GraphiQL over graphql-ws shows a deposit made after it started", async function () {
    // GraphiQL runs an operation once it holds the schema: its introspection (the page's first POST) answered.
    const introspected = page.waitForResponse(
      (answer) => answer.url() === `${api.url}/graphql` && answer.request().method() === "POST",
    );
    await page.goto(`${api.url}/graphql`);
    await introspected;
    await page.locator(".graphiql-query-editor .CodeMirror").waitFor();
    const vault = deployment.vaults.moderate!.address;
    const from = await api.app.feed.lastSeq();
    // CodeMirror 5's instance is on its wrapper element (its documented API): the editor's text is set as a whole.
    await page.locator(".graphiql-query-editor .CodeMirror").evaluate((editor, query) => {
      (editor as unknown as { CodeMirror: { setValue(text: string): void } }).CodeMirror.setValue(query);
    }, `subscription { transactionCreated(vaultAddress: "${vault}", afterSeq: ${from}) { hash type amount } }`);
    // GraphiQL parses the editor's text after a pause of its own (a debounce): clicked before, it still takes the
    // operation for the vaults query and sends it over HTTP. Then its button says it is running (it stops the
    // subscription). afterSeq (the log's last entry
    // before the deposit) makes the deposit reach the page even if the server opens the subscription after the
    // indexer wrote it.
    await new Promise((r) => setTimeout(r, 1_000));
    await page.locator(".graphiql-execute-button").click();
    await page.locator('.graphiql-execute-button[aria-label="Stop query (Ctrl-Enter)"]').waitFor();
    const { bob } = await users();
    await fund(deployment, bob, 10_000_000n);
    await deposit(deployment, "moderate", bob, 7_654_321n);
    await indexUntilCaughtUp(api.app.indexer!);
    const result = page.locator(".result-window");
    await result.locator("text=7654321").waitFor();
    const { items } = await api.app.queries.transactions(await bob.getAddress(), { limit: 1, offset: 0 });
    const text = (await result.textContent()) ?? "";
    expect(text).to.include(items[0].hash);
    expect(text).to.include('"type": "DEPOSIT"');
    await page.screenshot({ path: join(SHOTS, "graphiql-subscription.png") });
    expect(problems).to.deep.equal([]);
  });

  it("/graphql: GraphiQL renders its editor and runs the vaults query, showing the result", async function () {
    await page.goto(`${api.url}/graphql`);
    await page.locator(".graphiql-container").waitFor();
    await page.locator(".graphiql-execute-button").click();
    const result = page.locator(".result-window");
    await result.locator("text=NAP Aggressive USDC").waitFor();
    const answer = await request<{ data: { vaults: Array<{ name: string }> } }>(api.url, "POST", "/graphql", {
      body: { query: "{ vaults { name } }" },
    });
    const text = (await result.textContent()) ?? "";
    for (const { name } of answer.body.data.vaults) expect(text).to.include(name);
    await page.screenshot({ path: join(SHOTS, "graphiql.png") });
    expect(problems).to.deep.equal([]);
  });
});
