// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IERC7741Authorize
/// @notice The part of ERC-7741 (operator authorisation by signature) the router calls on a vault.
interface IERC7741Authorize {
    /// @notice Sets `operator` of `controller` to `approved` by the controller's EIP-712 signature.
    /// @param controller The signer, whose operator is set.
    /// @param operator The operator.
    /// @param approved Whether it may act for the controller.
    /// @param nonce The controller's nonce for this authorisation (used once).
    /// @param deadline Last timestamp at which it may be used.
    /// @param signature The controller's signature.
    /// @return True on success.
    function authorizeOperator(
        address controller,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline,
        bytes memory signature
    ) external returns (bool);
}
