/**
 * The data API's GraphQL schema (data-api.md, "GraphQL types" and "GraphQL"): the spec's types, enums, nine queries
 * and two subscriptions with their arguments, plus the types and enum values the spec leaves open (VaultSnapshot,
 * ProtocolStats, NodeStats, VaultOrderBy, Period, Interval), each documented here so that the published SDL
 * (GET /graphql/schema.graphql) explains itself.
 */
export const typeDefs = /* GraphQL */ `
  """
  An integer too large for Int (token amounts in the smallest unit, shares), as a decimal string.
  """
  scalar BigInt

  """
  An instant in UTC as ISO 8601 (e.g. 2026-11-22T18:00:00.000Z).
  """
  scalar DateTime

  enum RiskLevel {
    CONSERVATIVE
    MODERATE
    AGGRESSIVE
  }

  enum StrategyStatus {
    EVOLUTION
    SHADOW
    LIVE
    DEPRECATED
  }

  enum TransactionType {
    DEPOSIT
    WITHDRAW
    "Part of the vocabulary; never occurs: the vaults take deposits synchronously."
    DEPOSIT_REQUEST
    REDEEM_REQUEST
    CLAIM
  }

  enum TransactionStatus {
    "A redemption request waiting for its fulfilment (its amount is 0 until then)."
    PENDING
    FULFILLED
    CLAIMED
    "A redemption request canceled before it was filled."
    FAILED
  }

  "Orders of the vaults query. Ties are broken by creation time, then address."
  enum VaultOrderBy {
    TVL_DESC
    TVL_ASC
    APY_DESC
    APY_ASC
    CREATED_DESC
    CREATED_ASC
    NAME_ASC
  }

  "How far back vaultHistory reaches from the vault's latest indexed sample."
  enum Period {
    "7 days"
    WEEK
    "30 days"
    MONTH
    "90 days"
    QUARTER
    "365 days"
    YEAR
    "Since the vault was created"
    ALL
  }

  "The spacing of vaultHistory's points: the last sample in each bucket (UTC)."
  enum Interval {
    HOUR
    FOUR_HOURS
    DAY
    WEEK
  }

  "Annualised yields in percent, compounded from the share price."
  type APY {
    current: Float!
    day7: Float!
    day30: Float!
    inception: Float!
  }

  "Fees in percent: management and hurdle per year, performance of the gains above the hurdle."
  type Fees {
    management: Float!
    performance: Float!
    hurdle: Float!
  }

  type Vault {
    "Checksummed address."
    address: String!
    name: String!
    symbol: String!
    "Total assets in the asset's smallest unit."
    tvl: BigInt!
    tvlUsd: Float!
    totalShares: BigInt!
    "Assets for one whole share (10^shareDecimals shares)."
    pricePerShare: BigInt!
    apy: APY!
    fees: Fees!
    riskLevel: RiskLevel!
    "The strategies the vault allocates to (allocation: percent of the vault's assets)."
    strategies: [Strategy!]!
    isERC7540: Boolean!
    "Seconds a redemption request waits before it can be fulfilled (ERC-7540 vaults; 0 otherwise)."
    fulfillmentDelay: Int
    createdAt: DateTime!
  }

  type Strategy {
    id: ID!
    name: String!
    status: StrategyStatus!
    "Percent of the vault's assets (inside Vault.strategies) or of the protocol's TVL (elsewhere)."
    allocation: Float!
    apy: Float!
    riskScore: Int!
    sharpeRatio: Float!
    "Largest fall of the share price from a peak, in percent."
    maxDrawdown: Float!
  }

  type UserPosition {
    vault: Vault!
    shares: BigInt!
    "What the shares are worth now, in the asset's smallest unit."
    value: BigInt!
    "Value plus realised gains minus cost, in the asset's smallest unit."
    pnl: BigInt!
    pnlPercent: Float!
    depositedAt: DateTime!
  }

  type Transaction {
    hash: String!
    type: TransactionType!
    vault: Vault!
    user: String!
    amount: BigInt!
    shares: BigInt
    status: TransactionStatus!
    timestamp: DateTime!
  }

  "One point of a vault's history."
  type VaultSnapshot {
    timestamp: DateTime!
    block: Int!
    tvl: BigInt!
    tvlUsd: Float!
    totalShares: BigInt!
    pricePerShare: BigInt!
    "APY compounded from the previous point (the first point: from the sample before the period, else 0)."
    apy: Float!
  }

  "Aggregates over every vault and strategy, at the indexed block."
  type ProtocolStats {
    totalTvl: BigInt!
    totalTvlUsd: Float!
    vaultCount: Int!
    "Holders of an open position in any vault."
    userCount: Int!
    "Deposits, withdrawals and redemption requests so far."
    transactionCount: Int!
    depositVolume: BigInt!
    withdrawVolume: BigInt!
    "Management and performance fees accrued so far."
    feesAccrued: BigInt!
    strategyCount: Int!
    liveStrategyCount: Int!
    proposalCount: Int!
    voteCount: Int!
    indexedBlock: Int
    "Time of the newest indexed vault sample."
    indexedAt: DateTime
  }

  enum NodeRole {
    "This instance runs the indexer (holds its lease)."
    WRITER
    "This instance reads what another instance's indexer writes."
    READER
    "The indexer stopped on a reorg deeper than its window."
    HALTED
  }

  "The state of the API node answering and of the indexer behind it."
  type NodeStats {
    role: NodeRole!
    indexedBlock: Int
    headBlock: Int
    "Blocks between the chain head and the indexed block."
    lagBlocks: Int
    "Blocks below the head the indexer stays."
    finalityDepth: Int!
    "Why the indexer halted, or null."
    haltReason: String
  }

  type Query {
    vaults(riskLevel: RiskLevel, minTvl: BigInt, orderBy: VaultOrderBy): [Vault!]!
    "A vault by address; null with a NOT_FOUND error when there is none."
    vault(address: String!): Vault
    vaultHistory(address: String!, period: Period!, interval: Interval!): [VaultSnapshot!]!
    "Strategies that are not deprecated unless status asks for them."
    strategies(status: StrategyStatus, minSharpe: Float): [Strategy!]!
    strategy(id: ID!): Strategy
    userPositions(address: String!): [UserPosition!]!
    "Newest first; limit 1-500 (default 50), offset >= 0 (default 0)."
    userTransactions(address: String!, type: TransactionType, limit: Int, offset: Int): [Transaction!]!
    protocolStats: ProtocolStats!
    nodeStats: NodeStats!
  }

  type Subscription {
    """
    The vault's state after each indexed event of the vault. Each message carries extensions.seq, the event log's
    sequence number; afterSeq replays what the log holds after it before going live (resume after a reconnect).
    """
    vaultUpdated(address: String!, afterSeq: Int): Vault!
    "Each new transaction, of one vault or of all; extensions.seq and afterSeq as in vaultUpdated."
    transactionCreated(vaultAddress: String, afterSeq: Int): Transaction!
  }
`;
