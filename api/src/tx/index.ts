export { TxEngine } from "./engine";
export type { TxEngineOptions, SendRequest, StepRequest, SendResult, ReconcileReport, TxLogger } from "./engine";
export { intentKeyFor, stepKey } from "./intentKey";
export type { ChainLog, MinedReceipt } from "../chain/rpc/actions";
export * from "./errors";
export { FINAL_STATES, OPEN_STATES, newIntentEntry } from "./journal";
export type {
  NewIntent,
  TxExpectation,
  TxJournalEntry,
  TxJournalStore,
  TxPatch,
  TxState,
  WalletLease,
} from "./journal";
