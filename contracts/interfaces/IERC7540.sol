// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IERC7540Operator
/// @notice ERC-7540 operators: an account may let another act for it on its requests and claims (and, on a NapVault,
///         on its synchronous exits).
/// @dev ERC-165 id 0xe3bc4e65.
interface IERC7540Operator {
    /// @notice Emitted when `controller` gives or takes back `operator`'s right to act for it.
    /// @param controller The account giving the right.
    /// @param operator The account receiving or losing it.
    /// @param approved True when given, false when taken back.
    event OperatorSet(address indexed controller, address indexed operator, bool approved);

    /// @notice Gives (`approved` true) or takes back `operator`'s right to request and claim for the caller.
    /// @param operator The account receiving or losing the right.
    /// @param approved True to give, false to take back.
    /// @return Always true.
    function setOperator(address operator, bool approved) external returns (bool);

    /// @notice Whether `operator` may act for `controller`.
    /// @param controller The account acted for.
    /// @param operator The account acting.
    /// @return status True when `operator` may act for `controller`.
    function isOperator(address controller, address operator) external view returns (bool status);
}

/// @title IERC7540Redeem
/// @notice ERC-7540 asynchronous redemption: shares are locked by a request, filled later, then claimed
///         through ERC-4626 `redeem` / `withdraw` with the controller in the owner position.
/// @dev ERC-165 id 0x620ee8e4.
interface IERC7540Redeem {
    /// @notice Emitted when `sender` locks `shares` of `owner` in a request that `controller` will claim.
    /// @param controller Who may claim the request.
    /// @param owner Whose shares were locked.
    /// @param requestId Always 0 (requests of one controller are aggregated).
    /// @param sender The caller.
    /// @param shares Shares locked.
    event RedeemRequest(
        address indexed controller,
        address indexed owner,
        uint256 indexed requestId,
        address sender,
        uint256 shares
    );

    /// @notice Locks `shares` of `owner` in the vault as a redeem request controlled by `controller`.
    /// @param shares Shares to lock (non-zero).
    /// @param controller Who may claim the request.
    /// @param owner Whose shares are locked: the caller, or an account that made the caller its operator or
    ///        gave it an allowance.
    /// @return requestId Always 0: requests of one controller are aggregated.
    function requestRedeem(uint256 shares, address controller, address owner) external returns (uint256 requestId);

    /// @notice Shares of `controller` waiting to be filled (request id is ignored: always 0).
    /// @param requestId Ignored.
    /// @param controller The controller.
    /// @return pendingShares Shares waiting to be filled.
    function pendingRedeemRequest(uint256 requestId, address controller) external view returns (uint256 pendingShares);

    /// @notice Shares of `controller` filled and ready to claim (request id is ignored: always 0).
    /// @param requestId Ignored.
    /// @param controller The controller.
    /// @return claimableShares Shares filled and not yet claimed.
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
    /// @return The share token (the vault itself).
    function share() external view returns (address);
}

/// @title IERC7887Redeem
/// @notice ERC-7887 cancelation of ERC-7540 redeem requests: the controller takes its pending shares back. Here the
///         cancelation is synchronous: it is Claimable at once and never Pending.
/// @dev ERC-165 id 0xe76cffc7.
interface IERC7887Redeem {
    /// @notice Emitted when `sender` cancels the pending redeem request of `controller`.
    /// @param controller Controller of the request.
    /// @param requestId Always 0.
    /// @param sender The caller (the controller or its operator).
    event CancelRedeemRequest(address indexed controller, uint256 indexed requestId, address sender);

    /// @notice Emitted when `sender` claims the `shares` of canceled requests of `controller` for `receiver`.
    /// @param controller Controller of the canceled requests.
    /// @param receiver Receives the shares.
    /// @param requestId Always 0.
    /// @param sender The caller (the controller or its operator).
    /// @param shares Shares returned.
    event CancelRedeemClaim(
        address indexed controller,
        address indexed receiver,
        uint256 indexed requestId,
        address sender,
        uint256 shares
    );

    /// @notice Cancels the whole pending redeem request of `controller`; its shares become claimable at once with
    ///         claimCancelRedeemRequest. Only the controller or its operator.
    /// @param requestId Ignored (always 0).
    /// @param controller Controller of the request.
    function cancelRedeemRequest(uint256 requestId, address controller) external;

    /// @notice Whether a cancelation of `controller` is pending: never, cancelations are claimable at once.
    /// @param requestId Ignored.
    /// @param controller The controller.
    /// @return isPending Always false.
    function pendingCancelRedeemRequest(uint256 requestId, address controller) external view returns (bool isPending);

    /// @notice Shares of canceled requests of `controller` waiting to be claimed.
    /// @param requestId Ignored.
    /// @param controller The controller.
    /// @return shares Shares claimable with claimCancelRedeemRequest.
    function claimableCancelRedeemRequest(uint256 requestId, address controller) external view returns (uint256 shares);

    /// @notice Sends every share of canceled requests of `controller` to `receiver`. Only the controller or its
    ///         operator.
    /// @param requestId Ignored.
    /// @param receiver Receives the shares.
    /// @param controller Controller of the canceled requests.
    function claimCancelRedeemRequest(uint256 requestId, address receiver, address controller) external;
}

/// @title IERC7741
/// @notice ERC-7741 "Authorize Operator": a controller sets an ERC-7540 operator by an EIP-712 signature that anyone
///         may submit, so that a wallet without ETH (or a contract wallet, EIP-1271) appoints an operator through a
///         relayer. Signed typed data: `AuthorizeOperator(address controller,address operator,bool approved,bytes32
///         nonce,uint256 deadline)` in the contract's EIP-712 domain (DOMAIN_SEPARATOR: chain and contract bound).
/// @dev ERC-165 id 0xa9e50872: the four functions below and nothing else (the errors add nothing to the id).
interface IERC7741 {
    /// @notice Thrown when an authorisation is submitted after its `deadline`.
    /// @param deadline The last timestamp at which it was valid.
    error AuthorizationExpired(uint256 deadline);

    /// @notice Thrown when `nonce` of `controller` was already used or invalidated.
    /// @param controller The signer.
    /// @param nonce The nonce.
    error AuthorizationUsed(address controller, bytes32 nonce);

    /// @notice Thrown when the signature is not `controller`'s (EOA or EIP-1271) over the given parameters.
    /// @param controller The account the signature was checked against.
    error InvalidAuthorization(address controller);

    /// @notice Sets `operator` of `controller` to `approved`, authorised by `controller`'s EIP-712 signature
    ///         (ECDSA, or EIP-1271 when `controller` has code); anyone may submit it. Uses `nonce` up, emits
    ///         OperatorSet.
    /// @dev Reverts AuthorizationExpired after `deadline`, AuthorizationUsed for a used or invalidated nonce,
    ///      InvalidAuthorization for any other signer or parameters.
    /// @param controller The signer, whose operator is set.
    /// @param operator The operator.
    /// @param approved True to give the right, false to take it back.
    /// @param nonce Any value the controller has not used on this contract (unordered, used once).
    /// @param deadline Last timestamp at which the authorisation may be used.
    /// @param signature The controller's signature of the typed data.
    /// @return success Always true.
    function authorizeOperator(
        address controller,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline,
        bytes calldata signature
    ) external returns (bool success);

    /// @notice Marks `nonce` of the caller used, so that an authorisation it signed with it can never be submitted.
    /// @param nonce The nonce.
    function invalidateNonce(bytes32 nonce) external;

    /// @notice Whether `nonce` of `controller` is used (by an authorisation or invalidateNonce).
    /// @param controller The controller.
    /// @param nonce The nonce.
    /// @return used True once used.
    function authorizations(address controller, bytes32 nonce) external view returns (bool used);

    /// @notice The EIP-712 domain separator of this contract on this chain.
    /// @return The domain separator.
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
