export * from "./access";
export * from "./schemas";
export * from "./vocabulary";
