export * from "./requests";
export * from "./responses";
export * from "./schemas";
export * from "./vocabulary";
