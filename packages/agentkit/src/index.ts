/** NAP for Coinbase AgentKit: `napActionProvider({ apiUrl, apiKey })` adds every NAP operation as an action. */
export { NapActionProvider, napActionProvider, type NapActionProviderOptions } from "./provider";
