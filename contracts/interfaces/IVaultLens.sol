// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {INapVault} from "./INapVault.sol";

/// @title IVaultLens
/// @notice One `eth_call` for everything the API shows about vaults, or about one wallet's positions in them.
interface IVaultLens {
    /// @notice What the API shows about one vault.
    /// @param vault Vault address.
    /// @param name Share name.
    /// @param symbol Share symbol.
    /// @param asset Asset (USDC) address.
    /// @param assetSymbol Asset symbol.
    /// @param assetDecimals Asset decimals.
    /// @param shareDecimals Share decimals (asset decimals + 6).
    /// @param totalAssets Vault totalAssets (profit still locked left out).
    /// @param totalSupply Shares in existence (pending request shares included).
    /// @param pricePerShare Assets for 10**shareDecimals shares (convertToAssets, rounded down).
    /// @param apyBps Current APY in basis points: the rate at which reported profit is unlocking now, per year,
    ///        relative to totalAssets (lockedAtReport / unlockPeriod * 365 days / totalAssets), gross of the
    ///        performance fee (settled per holder on what unlocks to it) and of the management fee;
    ///        0 when nothing is unlocking or totalAssets is 0.
    /// @param managementFeeBps Annual management fee.
    /// @param performanceFeeBps Performance fee.
    /// @param hurdleRateBps Annual hurdle rate.
    /// @param riskLevel Risk level (0 CONSERVATIVE, 1 MODERATE, 2 AGGRESSIVE).
    /// @param isERC7540 Asynchronous redemption.
    /// @param fulfillmentDelay Seconds before a request may be filled (0 when synchronous).
    /// @param paused Entries paused.
    /// @param depositCap Cap on totalAssets (2**256 - 1: none).
    /// @param maxDeposit What one more deposit may bring in now (0 when paused or full; below 2**64 without a cap).
    /// @param createdAt Deployment timestamp.
    /// @param profitUnlockPeriod Seconds over which a report unlocks.
    /// @param lockedProfit Profit still locked now.
    /// @param feeRecipient Receives the fees (in assets, with claimFees).
    /// @param allocations Recorded strategy allocations.
    struct VaultView {
        address vault;
        string name;
        string symbol;
        address asset;
        string assetSymbol;
        uint8 assetDecimals;
        uint8 shareDecimals;
        uint256 totalAssets;
        uint256 totalSupply;
        uint256 pricePerShare;
        uint256 apyBps;
        uint256 managementFeeBps;
        uint256 performanceFeeBps;
        uint256 hurdleRateBps;
        INapVault.RiskLevel riskLevel;
        bool isERC7540;
        uint256 fulfillmentDelay;
        bool paused;
        uint256 depositCap;
        uint256 maxDeposit;
        uint256 createdAt;
        uint256 profitUnlockPeriod;
        uint256 lockedProfit;
        address feeRecipient;
        INapVault.Allocation[] allocations;
    }

    /// @notice One wallet's position in one vault.
    /// @param vault Vault address.
    /// @param name Share name.
    /// @param shares Shares held by the account (not counting shares in pending or canceled requests).
    /// @param assets Value of `shares` (convertToAssets, rounded down).
    /// @param pendingRedeemShares Shares in requests controlled by the account, not yet filled.
    /// @param claimableRedeemShares Shares of filled requests, not yet claimed.
    /// @param claimableAssets Assets of filled requests, not yet claimed.
    /// @param pendingRedeemReadyAt When the pending request becomes fillable by the fulfiller (anyone may fill it
    ///        the vault's FULFILLMENT_GRACE_PERIOD later); 0 when nothing is pending.
    /// @param claimableCancelShares Shares of canceled requests, not yet claimed back (ERC-7887).
    struct PositionView {
        address vault;
        string name;
        uint256 shares;
        uint256 assets;
        uint256 pendingRedeemShares;
        uint256 claimableRedeemShares;
        uint256 claimableAssets;
        uint256 pendingRedeemReadyAt;
        uint256 claimableCancelShares;
    }

    /// @notice The three figures a price history is made of, for one vault.
    /// @param totalAssets Vault totalAssets (as in VaultView).
    /// @param totalSupply Shares in existence (as in VaultView).
    /// @param pricePerShare Assets for 10**decimals() shares (convertToAssets, rounded down, as in VaultView).
    struct VaultSample {
        uint256 totalAssets;
        uint256 totalSupply;
        uint256 pricePerShare;
    }

    /// @notice What an indexer keeps of one vault: VaultView without the fields that move with time alone or that
    ///         the indexer does not keep (assetSymbol, apyBps, depositCap, maxDeposit, profitUnlockPeriod,
    ///         lockedProfit, feeRecipient), each of the rest as VaultView gives it.
    /// @param name Share name.
    /// @param symbol Share symbol.
    /// @param asset Asset (USDC) address.
    /// @param assetDecimals Asset decimals.
    /// @param shareDecimals Share decimals (asset decimals + 6).
    /// @param totalAssets Vault totalAssets (profit still locked left out).
    /// @param totalSupply Shares in existence (pending request shares included).
    /// @param pricePerShare Assets for 10**shareDecimals shares (convertToAssets, rounded down).
    /// @param managementFeeBps Annual management fee.
    /// @param performanceFeeBps Performance fee.
    /// @param hurdleRateBps Annual hurdle rate.
    /// @param riskLevel Risk level (0 CONSERVATIVE, 1 MODERATE, 2 AGGRESSIVE).
    /// @param isERC7540 Asynchronous redemption.
    /// @param fulfillmentDelay Seconds before a request may be filled (0 when synchronous).
    /// @param paused Entries paused.
    /// @param createdAt Deployment timestamp.
    /// @param allocations Recorded strategy allocations.
    struct VaultRecord {
        string name;
        string symbol;
        address asset;
        uint8 assetDecimals;
        uint8 shareDecimals;
        uint256 totalAssets;
        uint256 totalSupply;
        uint256 pricePerShare;
        uint256 managementFeeBps;
        uint256 performanceFeeBps;
        uint256 hurdleRateBps;
        INapVault.RiskLevel riskLevel;
        bool isERC7540;
        uint256 fulfillmentDelay;
        bool paused;
        uint256 createdAt;
        INapVault.Allocation[] allocations;
    }

    /// @notice Everything about each vault in `vaultList`, in the same order.
    /// @param vaultList NapVault addresses.
    /// @return One VaultView per vault.
    function vaults(address[] calldata vaultList) external view returns (VaultView[] memory);

    /// @notice What an indexer keeps of each vault in `vaultList`, in the same order: the fields of `vaults` it
    ///         records, at about half the node's work of `vaults` (no asset symbol, profit unlock, cap, deposit limit
    ///         or fee recipient is read).
    /// @param vaultList NapVault addresses.
    /// @return One VaultRecord per vault.
    function records(address[] calldata vaultList) external view returns (VaultRecord[] memory);

    /// @notice totalAssets, totalSupply and the price of one share of each vault in `vaultList`, in the same order:
    ///         the same figures as `vaults` gives, at a small part of its cost, for an indexer sampling a vault's
    ///         price at many past blocks (one `eth_call` per block for any number of vaults).
    /// @param vaultList NapVault addresses.
    /// @return One VaultSample per vault.
    function samples(address[] calldata vaultList) external view returns (VaultSample[] memory);

    /// @notice The positions of `account` in each vault of `vaultList`, in the same order.
    /// @param vaultList NapVault addresses.
    /// @param account The wallet.
    /// @return One PositionView per vault.
    function positions(address[] calldata vaultList, address account) external view returns (PositionView[] memory);
}
