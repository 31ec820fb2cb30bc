/**
 * The agent operations declared once (list.ts), and what the SDK derives from them: tool definitions for function
 * calling and the executor that runs a call by name (tools.ts).
 */
export { AGENT_OPERATIONS } from "./agent";
export { inputJsonSchema, outputJsonSchema, type JsonSchema } from "./jsonSchema";
export { findOperation, OPERATIONS, type OperationName } from "./list";
export { defineOperation, NapOperationError, type NapOperation, type OperationContext } from "./operation";
export { READ_OPERATIONS, vaultAddress } from "./reads";
export { redemptionOf } from "./redemptions";
export {
  anthropicTools,
  NapToolArgumentError,
  openAiTools,
  operationOfTool,
  runOperation,
  runTool,
  toolDefinitions,
  toolFailure,
  toolFailureText,
  toolName,
  type AnthropicTool,
  type OpenAiTool,
  type ToolDefinition,
  type ToolDefinitionOptions,
  type ToolFailure,
} from "./tools";
