/**
 * The GraphQL operations the SDK sends, one per query and subscription of the data API's schema. Their variables'
 * and results' types (types.ts) are generated from these documents and the schema by `npm run sdk:types`
 * (scripts/sdk/graphqlTypes.ts), which also refuses a document the schema does not validate.
 */

const APY = "apy { current day7 day30 inception }";
const FEES = "fees { management performance hurdle }";
const STRATEGY = "id name status allocation apy riskScore sharpeRatio maxDrawdown";
const VAULT = `address name symbol tvl tvlUsd totalShares pricePerShare ${APY} ${FEES} riskLevel
      strategies { ${STRATEGY} } isERC7540 fulfillmentDelay createdAt`;
const VAULT_REF = "vault { address name symbol }";
const TRANSACTION = `hash type ${VAULT_REF} user amount shares status timestamp`;

export const QUERIES = {
  vaults: `query Vaults($riskLevel: RiskLevel, $minTvl: BigInt, $orderBy: VaultOrderBy) {
    vaults(riskLevel: $riskLevel, minTvl: $minTvl, orderBy: $orderBy) { ${VAULT} }
  }`,
  vault: `query Vault($address: String!) {
    vault(address: $address) { ${VAULT} }
  }`,
  vaultHistory: `query VaultHistory($address: String!, $period: Period!, $interval: Interval!) {
    vaultHistory(address: $address, period: $period, interval: $interval) {
      timestamp block tvl tvlUsd totalShares pricePerShare apy
    }
  }`,
  strategies: `query Strategies($status: StrategyStatus, $minSharpe: Float) {
    strategies(status: $status, minSharpe: $minSharpe) { ${STRATEGY} }
  }`,
  strategy: `query Strategy($id: ID!) {
    strategy(id: $id) { ${STRATEGY} }
  }`,
  userPositions: `query UserPositions($address: String!) {
    userPositions(address: $address) { ${VAULT_REF} shares value pnl pnlPercent depositedAt }
  }`,
  userTransactions: `query UserTransactions($address: String!, $type: TransactionType, $limit: Int, $offset: Int) {
    userTransactions(address: $address, type: $type, limit: $limit, offset: $offset) { ${TRANSACTION} }
  }`,
  protocolStats: `query ProtocolStats {
    protocolStats {
      totalTvl totalTvlUsd vaultCount userCount transactionCount depositVolume withdrawVolume feesAccrued
      strategyCount liveStrategyCount proposalCount voteCount indexedBlock indexedAt
    }
  }`,
  nodeStats: `query NodeStats {
    nodeStats { role indexedBlock headBlock lagBlocks finalityDepth haltReason }
  }`,
} as const;

export const SUBSCRIPTIONS = {
  vaultUpdated: `subscription VaultUpdated($address: String!, $afterSeq: Int) {
    vaultUpdated(address: $address, afterSeq: $afterSeq) { ${VAULT} }
  }`,
  transactionCreated: `subscription TransactionCreated($vaultAddress: String, $afterSeq: Int) {
    transactionCreated(vaultAddress: $vaultAddress, afterSeq: $afterSeq) { ${TRANSACTION} }
  }`,
} as const;
