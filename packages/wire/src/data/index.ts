export * from "./schemas";
export * from "./vocabulary";
