// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ITestUSDC
/// @notice A 6-decimal test stand-in for USDC on chains where the deployment owns its USDC (local chains).
///         On Base Sepolia the deployment uses Circle's USDC instead.
/// @dev The ERC-20 and EIP-2612 functions come from OpenZeppelin; this file holds what the token adds.
interface ITestUSDC {
    /// @notice Emitted when `minter` creates `amount` new units for `to`.
    event Minted(address indexed minter, address indexed to, uint256 amount);

    /// @notice Thrown when a mint is asked for the zero address.
    error TestUSDCZeroRecipient();

    /// @notice Thrown when a mint of zero units is asked for (it would only cost gas and emit noise).
    error TestUSDCZeroAmount();

    /// @notice Creates `amount` units (6 decimals) for `to`.
    /// @dev Only an account holding MINTER_ROLE may call it.
    /// @param to Recipient of the new units.
    /// @param amount Number of units, 1e6 per whole USDC.
    function mint(address to, uint256 amount) external;
}
