export { TxEngine } from "./engine";
export type { TxEngineOptions, SendRequest, StepRequest, SendResult, ReconcileReport, TxLogger } from "./engine";
export { intentKeyFor, stepKey } from "./intentKey";
export * from "./errors";
