import { expect } from "chai";
import { loadConfig } from "../../../api/src/config";
import { startTestApp, type TestApp } from "../helpers/app";

describe("CORS: allowed origins as a setting (none by default)", function () {
  const preflight = (app: TestApp, origin: string) =>
    fetch(`${app.url}/api/v1/agent/wallet`, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-api-key",
      },
    });

  it("sends no CORS header by default", async function () {
    const app = await startTestApp();
    try {
      const response = await fetch(`${app.url}/health`, { headers: { Origin: "https://dash.nap.test" } });
      expect(response.headers.get("access-control-allow-origin")).to.equal(null);
      expect((await preflight(app, "https://dash.nap.test")).headers.get("access-control-allow-origin")).to.equal(null);
    } finally {
      await app.close();
    }
  });

  it("allows exactly the configured origins, with the API key header, and nothing to others", async function () {
    const app = await startTestApp({ env: { CORS_ALLOWED_ORIGINS: "https://dash.nap.test, http://localhost:5173" } });
    try {
      const allowed = await preflight(app, "https://dash.nap.test");
      expect(allowed.status).to.equal(204);
      expect(allowed.headers.get("access-control-allow-origin")).to.equal("https://dash.nap.test");
      expect(allowed.headers.get("access-control-allow-headers")).to.equal("Content-Type,X-API-Key,Idempotency-Key");
      const read = await fetch(`${app.url}/health`, { headers: { Origin: "http://localhost:5173" } });
      expect(read.headers.get("access-control-allow-origin")).to.equal("http://localhost:5173");
      expect(read.headers.get("access-control-expose-headers")).to.include("Retry-After");
      const other = await fetch(`${app.url}/health`, { headers: { Origin: "https://evil.test" } });
      expect(other.headers.get("access-control-allow-origin")).to.equal(null);
    } finally {
      await app.close();
    }
  });

  it("refuses an origin with a path in the setting, naming it", function () {
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: "https://dash.nap.test/app" })).to.throw(
      /CORS_ALLOWED_ORIGINS.*each origin must be scheme:\/\/host\[:port\], no path/,
    );
  });
});
