import { createHash } from "node:crypto";

/**
 * GET /docs: a self-contained page that renders /openapi.json (no script, style or font from the internet).
 * It lists every operation with its auth, rate limit, parameters, request body and responses.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NAP agent API</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
  header { background: #14213d; color: #fff; padding: 1rem 2rem; }
  main { max-width: 70rem; margin: 0 auto; padding: 1rem 2rem 4rem; }
  details { background: #fff; border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; }
  summary { cursor: pointer; padding: .6rem 1rem; font-family: ui-monospace, monospace; }
  .m { display: inline-block; min-width: 4rem; font-weight: 700; text-transform: uppercase; }
  .get { color: #0a7d32; } .post { color: #b35c00; } .put { color: #1f5fbf; } .delete { color: #b00020; }
  .body { padding: 0 1rem 1rem; }
  .key { background: #fde68a; border-radius: 4px; padding: 0 .4rem; font-size: 12px; margin-left: .5rem; }
  pre { background: #f3f4f6; padding: .6rem; border-radius: 4px; overflow: auto; font-size: 13px; }
  h2 { margin-top: 2rem; text-transform: capitalize; }
  table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; }
</style>
</head>
<body>
<header><h1 id="title">NAP agent API</h1><div id="sub"></div></header>
<main id="main"><p>Loading <a href="/openapi.json">/openapi.json</a>...</p></main>
<script>
"use strict";
function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const child of [].concat(children || [])) node.append(child);
  return node;
}
function json(value) { return el("pre", {}, JSON.stringify(value, null, 2)); }
fetch("/openapi.json").then((r) => r.json()).then((doc) => {
  document.getElementById("title").textContent = doc.info.title + " " + doc.info.version;
  document.getElementById("sub").textContent = doc.info.description || "";
  const main = document.getElementById("main");
  main.replaceChildren();
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      (byTag[(op.tags || ["other"])[0]] ||= []).push({ path, method, op });
    }
  }
  for (const [tag, items] of Object.entries(byTag)) {
    main.append(el("h2", {}, tag));
    for (const { path, method, op } of items) {
      const head = el("summary", {}, [el("span", { class: "m " + method }, method), " " + path + "  ", el("em", {}, op.summary || "")]);
      if (op.security) head.append(el("span", { class: "key" }, "X-API-Key"));
      const body = el("div", { class: "body" });
      if (op.description) body.append(el("p", {}, op.description));
      if (op["x-rate-limit"]) body.append(el("p", {}, "Rate limit: " + op["x-rate-limit"].max + " per minute per " + (op["x-rate-limit"].by === "ip" ? "client IP" : "API key")));
      if (op.parameters && op.parameters.length) {
        const rows = op.parameters.map((p) => el("tr", {}, [el("td", {}, p.name), el("td", {}, p.in), el("td", {}, p.required ? "required" : "optional"), el("td", {}, JSON.stringify(p.schema))]));
        body.append(el("h4", {}, "Parameters"), el("table", {}, rows));
      }
      if (op.requestBody) body.append(el("h4", {}, "Request body"), json(op.requestBody.content["application/json"].schema));
      body.append(el("h4", {}, "Responses"));
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content && response.content["application/json"] && response.content["application/json"].schema;
        body.append(el("p", {}, [el("strong", {}, status), " " + response.description]));
        if (schema && !schema.$ref) body.append(json(schema));
      }
      main.append(el("details", {}, [head, body]));
    }
  }
}).catch((e) => { document.getElementById("main").textContent = "Could not load /openapi.json: " + e; });
</script>
</body>
</html>
`;

/** The CSP-source hash of the page's inline `<tag>` block. */
function inlineHash(tag: "script" | "style"): string {
  const block = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(DOCS_PAGE);
  if (!block) throw new Error(`the docs page has no <${tag}> block`);
  return `'sha256-${createHash("sha256").update(block[1]).digest("base64")}'`;
}

/**
 * The page's content security policy: its own inline script and style only by hash (no 'unsafe-inline'), requests to
 * its own origin only (/openapi.json), nothing from another host, no framing. It works offline.
 */
export const DOCS_CSP =
  `default-src 'none'; script-src ${inlineHash("script")}; style-src ${inlineHash("style")}; connect-src 'self'; ` +
  "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
