export * from "./access";
export * from "./schemas";
export * from "./signedWrites";
export * from "./vocabulary";
