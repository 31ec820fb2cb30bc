// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title INapToken
/// @notice The NAP governance token: ERC-20 with EIP-2612 permit and ERC-5805 votes on a timestamp clock.
/// @dev What the token adds to OpenZeppelin's ERC20Votes/ERC20Permit: capped minting by MINTER_ROLE (the service
///      relayer grants voting power to agents that reach tier `established`), and self-delegation on first receipt
///      so that a holder's balance counts as votes without a separate `delegate` transaction.
interface INapToken {
    /// @notice Emitted when `minter` creates `amount` tokens for `to`.
    event NapMinted(address indexed minter, address indexed to, uint256 amount);

    /// @notice Thrown when a mint of `amount` would take the supply to `newSupply`, above `cap`.
    error NapTokenCapExceeded(uint256 amount, uint256 newSupply, uint256 cap);

    /// @notice Thrown when a mint to the zero address is asked for.
    error NapTokenZeroRecipient();

    /// @notice Creates `amount` tokens (18 decimals) for `to`; `to` self-delegates if it never delegated.
    /// @dev MINTER_ROLE only. The supply never exceeds `cap()`.
    function mint(address to, uint256 amount) external;

    /// @notice Maximum total supply.
    function cap() external view returns (uint256);
}
