import { expect } from "chai";
import { loadConfig } from "../../api/src/config";
import { startTestApp, type TestApp } from "./helpers/app";

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
      expect(allowed.headers.get("access-control-allow-headers")).to.equal(
        "Content-Type,Authorization,X-API-Key,Idempotency-Key",
      );
      const read = await fetch(`${app.url}/health`, { headers: { Origin: "http://localhost:5173" } });
      expect(read.headers.get("access-control-allow-origin")).to.equal("http://localhost:5173");
      expect(read.headers.get("access-control-expose-headers")).to.include("Retry-After");
      const other = await fetch(`${app.url}/health`, { headers: { Origin: "https://evil.test" } });
      expect(other.headers.get("access-control-allow-origin")).to.equal(null);
    } finally {
      await app.close();
    }
  });

  it("a browser dashboard can send a data key: the preflight allows Authorization and the answer shows the refusal's headers", async function () {
    const app = await startTestApp({ env: { CORS_ALLOWED_ORIGINS: "https://dash.nap.test" } });
    try {
      const preflighted = await fetch(`${app.url}/v1/auth/token-info`, {
        method: "OPTIONS",
        headers: {
          Origin: "https://dash.nap.test",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "authorization",
        },
      });
      expect(preflighted.status).to.equal(204);
      expect(preflighted.headers.get("access-control-allow-origin")).to.equal("https://dash.nap.test");
      expect(preflighted.headers.get("access-control-allow-headers")?.split(",")).to.include("Authorization");
      const read = await fetch(`${app.url}/v1/auth/token-info`, {
        headers: { Origin: "https://dash.nap.test", Authorization: "Bearer napd-unknownunknownunknownunknown00" },
      });
      expect(read.status).to.equal(401);
      expect(read.headers.get("access-control-allow-origin")).to.equal("https://dash.nap.test");
      expect(read.headers.get("access-control-expose-headers")?.split(",")).to.include("WWW-Authenticate");
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
