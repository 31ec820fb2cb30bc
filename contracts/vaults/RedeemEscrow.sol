// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title RedeemEscrow
/// @notice Holds the assets of filled, unclaimed ERC-7540 redeem requests of one vault, apart from the vault's
///         own balance, so that the vault's totalAssets needs no extra storage read to leave them out.
/// @dev Created by the vault, which it approves for every unit of the asset once; it has no other function.
///      Invariant: its asset balance is at least the vault's totalClaimableAssets.
contract RedeemEscrow {
    /// @param asset The vault's asset; the creating vault (msg.sender) may move all of it.
    constructor(IERC20 asset) {
        SafeERC20.forceApprove(asset, msg.sender, type(uint256).max);
    }
}
