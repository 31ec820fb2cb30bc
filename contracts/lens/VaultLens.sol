// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {INapVault} from "../interfaces/INapVault.sol";
import {IERC7540Redeem, IERC7887Redeem} from "../interfaces/IERC7540.sol";
import {IVaultLens} from "../interfaces/IVaultLens.sol";

/// @title VaultLens
/// @notice Read-only aggregator of NapVault state, so the API needs one `eth_call` per page. Holds no state.
contract VaultLens is IVaultLens {
    uint256 private constant _BPS = 10_000;
    uint256 private constant _YEAR = 365 days;

    /// @inheritdoc IVaultLens
    function vaults(address[] calldata vaultList) external view returns (VaultView[] memory views) {
        views = new VaultView[](vaultList.length);
        for (uint256 i = 0; i < vaultList.length; ++i) {
            views[i] = _vaultView(INapVault(vaultList[i]));
        }
    }

    /// @inheritdoc IVaultLens
    function records(address[] calldata vaultList) external view returns (VaultRecord[] memory kept) {
        kept = new VaultRecord[](vaultList.length);
        for (uint256 i = 0; i < vaultList.length; ++i) {
            INapVault vault = INapVault(vaultList[i]);
            VaultRecord memory r = kept[i];
            r.name = vault.name();
            r.symbol = vault.symbol();
            r.asset = vault.asset();
            r.assetDecimals = IERC20Metadata(r.asset).decimals();
            r.shareDecimals = vault.decimals();
            r.totalAssets = vault.totalAssets();
            r.totalSupply = vault.totalSupply();
            r.pricePerShare = vault.convertToAssets(10 ** r.shareDecimals);
            r.managementFeeBps = vault.managementFeeBps();
            r.performanceFeeBps = vault.performanceFeeBps();
            r.hurdleRateBps = vault.hurdleRateBps();
            r.riskLevel = vault.riskLevel();
            r.isERC7540 = vault.isERC7540();
            r.fulfillmentDelay = vault.fulfillmentDelay();
            r.paused = vault.paused();
            r.createdAt = vault.createdAt();
            r.allocations = vault.allocations();
        }
    }

    /// @inheritdoc IVaultLens
    function samples(address[] calldata vaultList) external view returns (VaultSample[] memory figures) {
        figures = new VaultSample[](vaultList.length);
        for (uint256 i = 0; i < vaultList.length; ++i) {
            INapVault vault = INapVault(vaultList[i]);
            figures[i] = VaultSample({
                totalAssets: vault.totalAssets(),
                totalSupply: vault.totalSupply(),
                pricePerShare: vault.convertToAssets(10 ** vault.decimals())
            });
        }
    }

    /// @inheritdoc IVaultLens
    function positions(
        address[] calldata vaultList,
        address account
    ) external view returns (PositionView[] memory views) {
        views = new PositionView[](vaultList.length);
        for (uint256 i = 0; i < vaultList.length; ++i) {
            INapVault vault = INapVault(vaultList[i]);
            PositionView memory p = views[i];
            p.vault = address(vault);
            p.name = vault.name();
            p.shares = vault.balanceOf(account);
            p.assets = vault.convertToAssets(p.shares);
            if (vault.isERC7540()) {
                p.pendingRedeemShares = IERC7540Redeem(address(vault)).pendingRedeemRequest(0, account);
                p.claimableRedeemShares = IERC7540Redeem(address(vault)).claimableRedeemRequest(0, account);
                p.claimableAssets = vault.maxWithdraw(account);
                p.pendingRedeemReadyAt = vault.pendingRedeemReadyAt(account);
                p.claimableCancelShares = IERC7887Redeem(address(vault)).claimableCancelRedeemRequest(0, account);
            }
        }
    }

    function _vaultView(INapVault vault) private view returns (VaultView memory v) {
        v.vault = address(vault);
        v.name = vault.name();
        v.symbol = vault.symbol();
        v.asset = vault.asset();
        v.assetSymbol = IERC20Metadata(v.asset).symbol();
        v.assetDecimals = IERC20Metadata(v.asset).decimals();
        v.shareDecimals = vault.decimals();
        v.totalAssets = vault.totalAssets();
        v.totalSupply = vault.totalSupply();
        v.pricePerShare = vault.convertToAssets(10 ** v.shareDecimals);
        (uint256 lockedAtReport, uint256 lastReport, uint256 unlockEnd, uint256 stillLocked) = vault.profitUnlock();
        v.lockedProfit = stillLocked;
        if (stillLocked > 0 && v.totalAssets > 0) {
            // stillLocked > 0 implies now < unlockEnd and unlockEnd > lastReport.
            v.apyBps = Math.mulDiv(lockedAtReport, _YEAR * _BPS, (unlockEnd - lastReport) * v.totalAssets);
        }
        v.managementFeeBps = vault.managementFeeBps();
        v.performanceFeeBps = vault.performanceFeeBps();
        v.hurdleRateBps = vault.hurdleRateBps();
        v.riskLevel = vault.riskLevel();
        v.isERC7540 = vault.isERC7540();
        v.fulfillmentDelay = vault.fulfillmentDelay();
        v.paused = vault.paused();
        v.depositCap = vault.depositCap();
        v.maxDeposit = vault.maxDeposit(address(0));
        v.createdAt = vault.createdAt();
        v.profitUnlockPeriod = vault.profitUnlockPeriod();
        v.feeRecipient = vault.feeRecipient();
        v.allocations = vault.allocations();
    }
}
