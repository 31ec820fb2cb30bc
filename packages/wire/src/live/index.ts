export * from "./requests";
export * from "./schemas";
export * from "./vocabulary";
