/** The baseline of `npm run bench:api`: a bare Koa app answering a small JSON object, nothing else. */
import Koa from "koa";

const app = new Koa();
app.use((ctx) => {
  ctx.body = { status: "ok", version: "0.0.0", chain_id: 31337, chain_name: "hardhat", rpc_connected: true };
});
const server = app.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
