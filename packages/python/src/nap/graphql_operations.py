"""The GraphQL operations the SDK sends, the same documents as the TypeScript SDK's (packages/sdk/src/graphql/
operations.ts): one per query and subscription of the data API's schema. `NapDataClient.query(name, ...)` and
`subscribe(name, ...)` send them by name; any other document goes through `query_document`.
"""

_APY = "apy { current day7 day30 inception }"
_FEES = "fees { management performance hurdle }"
_STRATEGY = "id name status allocation apy riskScore sharpeRatio maxDrawdown"
_VAULT = (
    f"address name symbol tvl tvlUsd totalShares pricePerShare {_APY} {_FEES} riskLevel "
    f"strategies {{ {_STRATEGY} }} isERC7540 fulfillmentDelay createdAt"
)
_VAULT_REF = "vault { address name symbol }"
_TRANSACTION = f"hash type {_VAULT_REF} user amount shares status timestamp"

QUERIES: dict[str, str] = {
    "vaults": "query Vaults($riskLevel: RiskLevel, $minTvl: BigInt, $orderBy: VaultOrderBy) "
    f"{{ vaults(riskLevel: $riskLevel, minTvl: $minTvl, orderBy: $orderBy) {{ {_VAULT} }} }}",
    "vault": f"query Vault($address: String!) {{ vault(address: $address) {{ {_VAULT} }} }}",
    "vaultHistory": "query VaultHistory($address: String!, $period: Period!, $interval: Interval!) "
    "{ vaultHistory(address: $address, period: $period, interval: $interval) "
    "{ timestamp block tvl tvlUsd totalShares pricePerShare apy } }",
    "strategies": "query Strategies($status: StrategyStatus, $minSharpe: Float) "
    f"{{ strategies(status: $status, minSharpe: $minSharpe) {{ {_STRATEGY} }} }}",
    "strategy": f"query Strategy($id: ID!) {{ strategy(id: $id) {{ {_STRATEGY} }} }}",
    "userPositions": "query UserPositions($address: String!) "
    f"{{ userPositions(address: $address) {{ {_VAULT_REF} shares value pnl pnlPercent depositedAt }} }}",
    "userTransactions": "query UserTransactions($address: String!, $type: TransactionType, $limit: Int, $offset: Int) "
    "{ userTransactions(address: $address, type: $type, limit: $limit, offset: $offset) "
    f"{{ {_TRANSACTION} }} }}",
    "protocolStats": "query ProtocolStats { protocolStats { totalTvl totalTvlUsd vaultCount userCount "
    "transactionCount depositVolume withdrawVolume feesAccrued strategyCount liveStrategyCount proposalCount "
    "voteCount indexedBlock indexedAt } }",
    "nodeStats": "query NodeStats { nodeStats { role indexedBlock headBlock lagBlocks finalityDepth haltReason } }",
}

SUBSCRIPTIONS: dict[str, str] = {
    "vaultUpdated": "subscription VaultUpdated($address: String!, $afterSeq: Int) "
    f"{{ vaultUpdated(address: $address, afterSeq: $afterSeq) {{ {_VAULT} }} }}",
    "transactionCreated": "subscription TransactionCreated($vaultAddress: String, $afterSeq: Int) "
    f"{{ transactionCreated(vaultAddress: $vaultAddress, afterSeq: $afterSeq) {{ {_TRANSACTION} }} }}",
}
