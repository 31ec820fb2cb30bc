// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {MockUSDC} from "./MockUSDC.sol";

/// @title BlockingUSDC
/// @notice Tests only: MockUSDC that refuses transfers to one address, as Circle's USDC does for a blacklisted one.
contract BlockingUSDC is MockUSDC {
    /// @notice Thrown on a transfer to the blocked address.
    error BlockedRecipient(address to);

    /// @notice The address that may not receive tokens (none at first).
    address public blocked;

    /// @notice Blocks transfers to `account` (replacing any earlier one); anyone may call (test token).
    /// @param account The address to block.
    function blockRecipient(address account) external {
        blocked = account;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (to == blocked && to != address(0)) revert BlockedRecipient(to);
        super._update(from, to, value);
    }
}
