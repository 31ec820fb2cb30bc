// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";

/// @title MockApiVault
/// @notice Test helper: a plain OpenZeppelin ERC-4626 vault with the NAP read views the API uses
///         (`paused()`, `createdAt()`), so API tests can read vaults before the real vaults are merged.
/// @dev Not for production. Anyone can pause it.
contract MockApiVault is ERC4626 {
    /// @notice Whether the vault reports itself paused.
    bool public paused;
    /// @notice Unix time the vault reports as its creation.
    uint256 public createdAt;

    /// @param asset_ The underlying token.
    /// @param name_ ERC-20 name of the share.
    /// @param symbol_ ERC-20 symbol of the share.
    /// @param createdAt_ Creation time to report (lets tests control the APY window).
    constructor(
        IERC20 asset_,
        string memory name_,
        string memory symbol_,
        uint256 createdAt_
    ) ERC20(name_, symbol_) ERC4626(asset_) {
        createdAt = createdAt_;
    }

    /// @notice Sets the reported pause flag.
    /// @param value The new flag.
    function setPaused(bool value) external {
        paused = value;
    }
}
