// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {INapVault} from "../interfaces/INapVault.sol";
import {IERC7540Redeem, IERC7887Redeem} from "../interfaces/IERC7540.sol";

/// @title VaultProbe
/// @notice Test helper: everything the vault property and invariant tests compare after each step, in one call.
/// @dev Only for tests; never deployed outside local chains.
contract VaultProbe {
    /// @notice Numbers read from `vault` and its asset for `accounts`, in a fixed order: block timestamp,
    ///         totalSupply, totalAssets, accountedAssets, feesOwed, totalClaimableAssets, the asset balances of the
    ///         vault and of its escrow, the vault's own shares, the stored lastFeeAccrual, the performance fee shares
    ///         the accounts owe (summed); then for each account its shares, asset balance, pending shares, ready time,
    ///         claimable shares, claimable assets and canceled shares (the request fields are 0 on a synchronous
    ///         vault).
    /// @param vault The vault.
    /// @param accounts The accounts to read.
    /// @return values The numbers, 11 + 7 per account.
    function read(INapVault vault, address[] calldata accounts) external view returns (uint256[] memory values) {
        IERC20 asset = IERC20(vault.asset());
        address escrow = vault.redeemEscrow();
        bool isAsync = vault.isERC7540();
        values = new uint256[](11 + 7 * accounts.length);
        values[0] = block.timestamp;
        values[1] = vault.totalSupply();
        values[2] = vault.totalAssets();
        values[3] = vault.accountedAssets();
        values[4] = vault.feesOwed();
        values[5] = vault.totalClaimableAssets();
        values[6] = asset.balanceOf(address(vault));
        values[7] = escrow == address(0) ? 0 : asset.balanceOf(escrow);
        values[8] = vault.balanceOf(address(vault));
        values[9] = vault.lastFeeAccrual();
        for (uint256 i = 0; i < accounts.length; ++i) {
            address account = accounts[i];
            uint256 at = 11 + 7 * i;
            (uint256 owed, ) = vault.performanceFeeOwed(account);
            values[10] += owed;
            values[at] = vault.balanceOf(account);
            values[at + 1] = asset.balanceOf(account);
            if (!isAsync) continue;
            values[at + 2] = IERC7540Redeem(address(vault)).pendingRedeemRequest(0, account);
            values[at + 3] = vault.pendingRedeemReadyAt(account);
            values[at + 4] = IERC7540Redeem(address(vault)).claimableRedeemRequest(0, account);
            values[at + 5] = vault.maxWithdraw(account);
            values[at + 6] = IERC7887Redeem(address(vault)).claimableCancelRedeemRequest(0, account);
        }
    }
}
