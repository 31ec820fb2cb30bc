// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IERC7540Operator
/// @notice ERC-7540 operators: an account may let another act for it on its requests and claims.
/// @dev ERC-165 id 0xe3bc4e65.
interface IERC7540Operator {
    /// @notice Emitted when `controller` gives or takes back `operator`'s right to act for it.
    event OperatorSet(address indexed controller, address indexed operator, bool approved);

    /// @notice Gives (`approved` true) or takes back `operator`'s right to request and claim for the caller.
    /// @return Always true.
    function setOperator(address operator, bool approved) external returns (bool);

    /// @notice Whether `operator` may act for `controller`.
    function isOperator(address controller, address operator) external view returns (bool status);
}

/// @title IERC7540Redeem
/// @notice ERC-7540 asynchronous redemption: shares are locked by a request, filled later, then claimed
///         through ERC-4626 `redeem` / `withdraw` with the controller in the owner position.
/// @dev ERC-165 id 0x620ee8e4.
interface IERC7540Redeem {
    /// @notice Emitted when `sender` locks `shares` of `owner` in a request that `controller` will claim.
    event RedeemRequest(
        address indexed controller,
        address indexed owner,
        uint256 indexed requestId,
        address sender,
        uint256 shares
    );

    /// @notice Locks `shares` of `owner` in the vault as a redeem request controlled by `controller`.
    /// @return requestId Always 0: requests of one controller are aggregated.
    function requestRedeem(uint256 shares, address controller, address owner) external returns (uint256 requestId);

    /// @notice Shares of `controller` waiting to be filled (request id is ignored: always 0).
    function pendingRedeemRequest(uint256 requestId, address controller) external view returns (uint256 pendingShares);

    /// @notice Shares of `controller` filled and ready to claim (request id is ignored: always 0).
    function claimableRedeemRequest(
        uint256 requestId,
        address controller
    ) external view returns (uint256 claimableShares);
}

/// @title IERC7575
/// @notice ERC-7575: the share token of a vault may be a separate contract; here it is the vault itself.
/// @dev The ERC-165 id 0x2f0a18c5 is computed over the whole ERC-7575 vault interface (the ERC-4626 functions
///      without the ERC-20 ones, plus `share()`); only `share()` is declared here because the ERC-4626 part comes
///      from OpenZeppelin's IERC4626.
interface IERC7575 {
    /// @notice The address of the share token.
    function share() external view returns (address);
}
