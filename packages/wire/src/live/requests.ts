import { z } from "zod";
import { addressSchema, textSchema, usdcAmountSchema } from "./schemas";
import {
  AGENT_TYPES,
  KEY_OPERATIONS,
  RISK_PARAMS,
  SCOPED_KEY_DEFAULT_LIFETIME_SECONDS,
  SCOPED_KEY_MAX_LIFETIME_SECONDS,
  SCOPED_KEY_MIN_LIFETIME_SECONDS,
  TIERS,
  VAULT_IDS,
  type RiskParamName,
} from "./vocabulary";

/**
 * The live API's request schemas that clients send: the routes validate with them, the OpenAPI document shows them,
 * and the MCP server hands them to models as its tools' input schemas.
 */

/** Raw shares (an integer in the share token's smallest unit) or "all"; output: bigint or "all". */
export const sharesSchema = z
  .string()
  .regex(/^(all|[1-9][0-9]{0,76})$/, {
    message: 'must be "all" or a positive whole number of raw shares (as a string)',
  })
  .transform((value) => (value === "all" ? ("all" as const) : BigInt(value)))
  .meta({
    description: 'raw shares (the share token\'s smallest unit, as in shares_raw of POST /api/v1/positions) or "all"',
    example: "all",
  });

/** One of the deployment's vaults, by the name the API gives it. */
export const vaultIdSchema = z.enum(VAULT_IDS);

export const withdrawBody = z
  .strictObject({
    vault_id: vaultIdSchema,
    amount_usdc: usdcAmountSchema.optional(),
    shares: sharesSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const given = Number(body.amount_usdc !== undefined) + Number(body.shares !== undefined);
    if (given !== 1) {
      ctx.addIssue({
        code: "custom",
        path: ["amount_usdc"],
        message: given === 0 ? "give amount_usdc or shares" : "give amount_usdc or shares, not both",
      });
    }
  })
  .meta({
    id: "WithdrawRequest",
    description: "amount_usdc (withdraw that much USDC) or shares (redeem that many shares, or all of them)",
  });

export const redeemRequestBody = z
  .strictObject({ vault_id: vaultIdSchema, shares: sharesSchema })
  .meta({ id: "RedeemRequestRequest" });

export const vaultActionBody = z.strictObject({ vault_id: vaultIdSchema }).meta({ id: "VaultAction" });

export const depositBody = z
  .strictObject({ vault_id: vaultIdSchema, amount_usdc: usdcAmountSchema })
  .meta({ id: "DepositRequest" });

export const walletLookupBody = z.strictObject({ wallet_address: addressSchema }).meta({ id: "WalletLookup" });

export const voteBody = z
  .strictObject({
    proposal_id: z
      .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^[1-9][0-9]{0,77}$/)])
      .meta({ description: "integer, or a decimal string for ids beyond 2^53" }),
    support: z.union([z.literal(0), z.literal(1), z.literal(2)]).meta({ description: "0 against, 1 for, 2 abstain" }),
    reason: textSchema(0, 1000, { multiline: true }).default(""),
  })
  .meta({ id: "VoteRequest" });

const riskField = (name: RiskParamName) => {
  const { min, max, fallback, description } = RISK_PARAMS[name];
  const bounds = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min}-${max}`;
  return z
    .number()
    .int()
    .min(min)
    .max(max)
    .default(fallback)
    .meta({ description: `${description}; default ${fallback}; ${bounds}` });
};

export const riskParamsShape = {
  max_position_size_percent: riskField("max_position_size_percent"),
  max_leverage: riskField("max_leverage"),
  stop_loss_percent: riskField("stop_loss_percent"),
  slippage_tolerance_bps: riskField("slippage_tolerance_bps"),
  correlation_threshold: riskField("correlation_threshold"),
  velocity_limit: riskField("velocity_limit"),
  flash_loans_enabled: z.boolean().default(false).meta({ description: "default false" }),
};

export const submitBody = z
  .strictObject({
    name: textSchema(3, 100).meta({
      description:
        "3-100 characters (and 3-100 bytes of UTF-8, the registry's bound); valid Unicode without control or bidirectional control characters",
    }),
    description: textSchema(10, 2000, { multiline: true }).meta({
      description:
        "10-2000 characters (and 10-2000 bytes of UTF-8); valid Unicode without control characters (line feeds and tabs allowed) or bidirectional control characters",
    }),
    dna_string: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{64}$/, { message: "must be 64 hex characters (32 bytes), 0x prefix optional" })
      .optional()
      .meta({
        description:
          "32 bytes hex; when omitted: keccak256(abi.encode(string name, address agent_address, uint256 unix_seconds_of_the_request))",
      }),
    ...riskParamsShape,
  })
  .meta({ id: "StrategySubmission" });

export const txHashParams = z.strictObject({
  tx_hash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex transaction hash")
    .meta({ description: "transaction hash" }),
});

/** The wallet a sign-in nonce is asked for, or whose registration is looked up. */
export const nonceQuery = z.strictObject({ wallet: addressSchema });

export const registerBody = z
  .strictObject({
    wallet_address: addressSchema,
    signature: z
      .string()
      .regex(/^0x([0-9a-fA-F]{2})+$/, { message: "must be 0x-prefixed hex bytes", abort: true })
      .max(2 + 2 * 4096, "must be at most 4096 bytes")
      .meta({ description: "EIP-191 signature of `message` from the nonce step (EIP-1271 for contract wallets)" }),
    nonce: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex characters")
      .transform((value) => value.toLowerCase()),
    agent_name: textSchema(3, 100),
    agent_type: z.enum(AGENT_TYPES).default("custom"),
    description: textSchema(0, 500, { multiline: true }).optional(),
    operator_address: addressSchema,
    operator_email: z.email({ message: "must be an email address" }).max(254).optional(),
    operator_name: textSchema(1, 100).optional(),
    framework: textSchema(1, 50).optional(),
    repo_url: z
      .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
      .max(2048)
      .optional(),
  })
  .meta({ id: "RegisterRequest" });

export const leaderboardQuery = z.strictObject({
  limit: z.coerce.number<string>().int().min(1).max(100).default(50).meta({ description: "default 50, maximum 100" }),
});

export const grantTierParams = z.strictObject({ agent_id: z.uuid({ message: "must be a UUID" }) });
export const grantTierBody = z.strictObject({ tier: z.enum(TIERS) }).meta({ id: "TierGrant" });

/** A raw amount in an asset's smallest unit (USDC: 6 decimals, ETH: wei, shares: raw shares) or "all". */
export const rawAmountSchema = z
  .string()
  .regex(/^(all|[1-9][0-9]{0,77})$/, {
    message: 'must be "all" or a positive whole number in the asset\'s smallest unit (as a string)',
  })
  .transform((value) => (value === "all" ? ("all" as const) : BigInt(value)))
  .meta({
    description:
      'the asset\'s smallest unit as a decimal string (USDC: 6 decimals, ETH: wei, shares: raw shares), or "all" ' +
      "(for ETH: the balance less twice the transfer's gas at the current max fee)",
    example: "all",
  });

/** An exit from the server wallet; the destination is always the agent's operator address and cannot be named. */
export const exitBody = z
  .discriminatedUnion("asset", [
    z.strictObject({ asset: z.literal("usdc"), amount: rawAmountSchema }),
    z.strictObject({ asset: z.literal("eth"), amount: rawAmountSchema }),
    z.strictObject({ asset: z.literal("shares"), vault_id: vaultIdSchema, amount: rawAmountSchema }),
  ])
  .meta({
    id: "ExitRequest",
    description:
      "What leaves the agent's server wallet for its operator address: USDC, ETH, or the shares of one vault. There is no recipient field: the operator address is the only destination.",
  });

/** The agent whose operator is changed. */
export const agentIdParams = z.strictObject({ agent_id: z.uuid({ message: "must be a UUID" }) });

export const operatorNonceBody = z
  .strictObject({
    operator_address: addressSchema.meta({ description: "the agent's current operator: the wallet that signs" }),
    new_operator_address: addressSchema,
  })
  .meta({ id: "OperatorNonceRequest" });

/** A single-use nonce's proof: the nonce and the wallet's signature of its message. */
const signedProofShape = {
  nonce: z
    .string()
    .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex characters")
    .transform((value) => value.toLowerCase()),
  signature: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})+$/, { message: "must be 0x-prefixed hex bytes", abort: true })
    .max(2 + 2 * 4096, "must be at most 4096 bytes")
    .meta({ description: "EIP-191 signature of `message` from the nonce step (EIP-1271 for contract wallets)" }),
};

export const operatorChangeBody = z
  .strictObject({
    new_operator_address: addressSchema,
    ...signedProofShape,
    signature: signedProofShape.signature.meta({
      description: "the current operator's EIP-191 signature of `message` (EIP-1271 for contract wallets)",
    }),
  })
  .meta({ id: "OperatorChangeRequest" });

/** A key's prefix: `nap-` and the key's next 8 characters. */
const keyPrefixSchema = z
  .string()
  .regex(/^nap-[0-9A-Za-z]{8}$/, { message: "must be a key prefix: nap- and 8 letters or digits" });

/** To revoke a scoped key by a signature instead of the full key: its prefix. */
const scopedKeyPrefixField = keyPrefixSchema.optional().meta({
  description: "revoke only: the prefix of one of the agent's scoped keys; absent: the agent's full key",
});

export const keyNonceBody = z
  .strictObject({
    signer_address: addressSchema.meta({
      description: "the wallet that will sign: the agent's wallet (rotate, revoke) or its operator (revoke)",
    }),
    action: z.enum(["rotate", "revoke"]),
    api_key_prefix: scopedKeyPrefixField,
  })
  .superRefine((body, ctx) => {
    if (body.action === "rotate" && body.api_key_prefix !== undefined) {
      ctx.addIssue({ code: "custom", path: ["api_key_prefix"], message: "only a revocation names a scoped key" });
    }
  })
  .meta({ id: "KeyNonceRequest" });

export const keyProofBody = z
  .strictObject({ ...signedProofShape, api_key_prefix: scopedKeyPrefixField })
  .meta({ id: "KeyProof" });

/** An operation a scoped key may call, by its exact name (lowercase; `Vault.Deposit` is not `vault.deposit`). */
export const keyOperationSchema = z.enum(KEY_OPERATIONS);

/** What a scoped key may do: read only, or a set of operations (reads included), with an optional USDC a day. */
const scopedKeyShape = {
  label: textSchema(1, 100).optional().meta({ description: "a name to recognise the key by in the key list" }),
  read_only: z.boolean().optional().meta({ description: "true: the key reads and nothing else" }),
  operations: z
    .array(keyOperationSchema)
    .min(1)
    .max(KEY_OPERATIONS.length)
    .transform((operations) => [...new Set(operations)])
    .optional()
    .meta({ description: "the writes the key may call (every scoped key may read)" }),
  usdc_per_day: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,29})$/, { message: "must be a whole number of USDC base units (6 decimals) as a string" })
    .transform((value) => BigInt(value))
    .optional()
    .meta({
      description:
        "at most this much USDC (base units, 6 decimals: 25000000 = 25 USDC) leaves the agent's wallet by this key per UTC day; absent: no daily limit",
      example: "25000000",
    }),
  expires_in_seconds: z
    .int()
    .min(SCOPED_KEY_MIN_LIFETIME_SECONDS)
    .max(SCOPED_KEY_MAX_LIFETIME_SECONDS)
    .default(SCOPED_KEY_DEFAULT_LIFETIME_SECONDS)
    .meta({ description: "the key's lifetime (default 30 days, at most 365 days)" }),
};

type ScopedKeyFields = {
  read_only?: boolean;
  operations?: readonly string[];
  usdc_per_day?: bigint;
};

function refineScope(body: ScopedKeyFields, ctx: z.RefinementCtx): void {
  const readOnly = body.read_only === true;
  if (readOnly === (body.operations !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["operations"],
      message: readOnly
        ? "give read_only: true or operations, not both"
        : "give read_only: true or operations (the writes the key may call)",
    });
  }
  if (readOnly && body.usdc_per_day !== undefined) {
    ctx.addIssue({ code: "custom", path: ["usdc_per_day"], message: "a read-only key moves no USDC: omit it" });
  }
}

/** POST /api/v1/agent/keys (with the full key): a scoped key for the agent. */
export const scopedKeyBody = z
  .strictObject(scopedKeyShape)
  .superRefine(refineScope)
  .meta({ id: "ScopedKeyRequest", description: "exactly one of read_only: true or operations" });

/** POST /api/v1/agents/{agent_id}/keys/nonce: the scope the agent's wallet will sign. */
export const scopedKeyNonceBody = scopedKeyBody.meta({ id: "ScopedKeyNonceRequest" });

/** POST /api/v1/agents/{agent_id}/keys: the scope as given to the nonce step, with the wallet's proof. */
export const scopedKeySignedBody = z
  .strictObject({ ...scopedKeyShape, ...signedProofShape })
  .superRefine(refineScope)
  .meta({
    id: "ScopedKeySignedRequest",
    description: "the scope exactly as sent to the nonce step (its message names it), the nonce and the signature",
  });

/** A key by its prefix: `nap-` and the key's next 8 characters. */
export const keyPrefixParams = z.strictObject({ prefix: keyPrefixSchema });
