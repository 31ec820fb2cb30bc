// graphql-ws publishes its ws adapter through package "exports", which this project's moduleResolution ("node")
// does not read; Node resolves the path at run time, this tells TypeScript where its types are.
declare module "graphql-ws/use/ws" {
  export * from "graphql-ws/dist/use/ws";
}
