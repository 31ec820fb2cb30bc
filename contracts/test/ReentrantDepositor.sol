// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {HookUSDC, ITokenSender} from "./HookUSDC.sol";

/// @title ReentrantDepositor
/// @notice Tests only: a holder that deposits into a vault over HookUSDC and, while the vault pulls its deposit
///         (before the tokens move), redeems the shares it already held.
contract ReentrantDepositor is ITokenSender {
    IERC4626 private immutable _vault;
    bool private _armed;

    /// @param vault The vault to attack; its asset must be HookUSDC.
    constructor(IERC4626 vault) {
        _vault = vault;
        HookUSDC(vault.asset()).registerSender();
        IERC20(vault.asset()).approve(address(vault), type(uint256).max);
    }

    /// @notice Deposits `assets` for itself without any hook action.
    function depositQuietly(uint256 assets) external {
        _vault.deposit(assets, address(this));
    }

    /// @notice Deposits `assets` and redeems every share it held before, from inside the asset's pull.
    function depositAndRedeemInside(uint256 assets) external {
        _armed = true;
        _vault.deposit(assets, address(this));
        _armed = false;
    }

    /// @inheritdoc ITokenSender
    function tokensToSend(address to, uint256) external {
        if (!_armed || to != address(_vault)) return;
        _armed = false;
        _vault.redeem(_vault.balanceOf(address(this)), address(this), address(this));
    }
}
