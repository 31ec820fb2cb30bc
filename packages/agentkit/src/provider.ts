import {
  ActionProvider,
  type Action,
  type EvmWalletProvider,
  type Network,
  type WalletProvider,
} from "@coinbase/agentkit";
import {
  NapClient,
  NapDataClient,
  OPERATIONS,
  runOperation,
  toolFailure,
  toolFailureText,
  toolName,
  type MessageSigner,
  type NapOperation,
  type TransportOptions,
} from "@nap/sdk";

/**
 * NAP as a Coinbase AgentKit action provider: one action per operation of the SDK's operations list, named like
 * the SDK's tool definitions (`nap_deposit`...), with the operation's zod schema and description. The actions are
 * built from the list directly rather than through AgentKit's CreateAction decorator, whose wrapper reports each
 * call to an analytics endpoint and leaves that request's failure unhandled. An action answers the API's JSON, or
 * "Error: <the API's message>" as AgentKit actions do, so the model reads what to correct.
 */

export interface NapActionProviderOptions extends Omit<TransportOptions, "baseUrl"> {
  /** The NAP API's address (live API and data API). */
  apiUrl: string;
  /** The agent's API key; without one, `nap_register` (signed by the AgentKit wallet) sets it. */
  apiKey?: string;
  /** A data API key (`napd-...`) for higher rate limits on the reads. */
  dataApiKey?: string;
}

/** The AgentKit wallet as the owner that signs a registration (EIP-191). */
function ownerOf(walletProvider: WalletProvider): MessageSigner | undefined {
  const wallet = walletProvider as Partial<EvmWalletProvider>;
  if (typeof wallet.signMessage !== "function") return undefined;
  return {
    getAddress: async () => walletProvider.getAddress(),
    signMessage: (message: string) => wallet.signMessage!(message),
  };
}

export class NapActionProvider extends ActionProvider<WalletProvider> {
  readonly live: NapClient;
  readonly data: NapDataClient;

  constructor(options: NapActionProviderOptions) {
    super("nap", []);
    const { apiUrl, apiKey, dataApiKey, ...transport } = options;
    this.live = new NapClient({ ...transport, baseUrl: apiUrl, apiKey });
    this.data = new NapDataClient({ ...transport, baseUrl: apiUrl, apiKey: dataApiKey });
  }

  override getActions(walletProvider: WalletProvider): Action[] {
    return (OPERATIONS as readonly NapOperation[]).map((operation) => ({
      name: toolName(operation),
      description: operation.description,
      // AgentKit's type names zod 3's schema; the operations' are zod 4's, which parse() the same way.
      schema: operation.input as unknown as Action["schema"],
      invoke: (args: unknown) => this.#invoke(operation, walletProvider, args),
    }));
  }

  /** The NAP API is reached over HTTP and the agent's server wallet is the API's: any network will do. */
  supportsNetwork(_network: Network): boolean {
    return true;
  }

  async #invoke(operation: NapOperation, walletProvider: WalletProvider, args: unknown): Promise<string> {
    try {
      const signer = ownerOf(walletProvider);
      const answer = await runOperation(
        { live: this.live, data: this.data, ...(signer ? { signer } : {}) },
        operation,
        args,
      );
      return JSON.stringify(answer, null, 2);
    } catch (error) {
      const failure = toolFailure(error);
      if (!failure) throw error;
      return `Error: ${toolFailureText(failure)}`;
    }
  }
}

/** `AgentKit.from({ walletProvider, actionProviders: [napActionProvider({ apiUrl, apiKey })] })`. */
export const napActionProvider = (options: NapActionProviderOptions) => new NapActionProvider(options);
