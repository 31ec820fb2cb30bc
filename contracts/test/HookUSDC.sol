// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {MockUSDC} from "./MockUSDC.sol";

/// @title ITokenSender
/// @notice Test interface: what HookUSDC calls on a sender that registered for it, ERC-777 `tokensToSend` style.
interface ITokenSender {
    /// @notice Called before `amount` units move from the implementer to `to`, balances unchanged yet.
    /// @param to Recipient of the transfer.
    /// @param amount Units about to move.
    function tokensToSend(address to, uint256 amount) external;
}

/// @title HookUSDC
/// @notice Tests only: MockUSDC that calls a registered sender before moving its tokens, as an ERC-777 token calls
///         `tokensToSend`. USDC has no hooks; this token shows what a vault's order of effects and interactions
///         gives away if its asset ever had them.
contract HookUSDC is MockUSDC {
    /// @notice Senders that asked to be called before their tokens move.
    mapping(address sender => bool) public registered;

    /// @notice The caller asks to be called (ITokenSender) before its tokens move; anyone may call (test token).
    function registerSender() external {
        registered[msg.sender] = true;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (registered[from]) ITokenSender(from).tokensToSend(to, value);
        super._update(from, to, value);
    }
}
