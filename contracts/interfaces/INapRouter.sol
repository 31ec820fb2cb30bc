// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title INapRouter
/// @notice Deposits and redemptions signed by the owner (EIP-712 typed data, EOA or EIP-1271 signer) and sent by
///         anyone: the service's relayer, a third party, or the owner itself. The owner signs the vault, the amount,
///         the receiver, the least it accepts, a nonce and a deadline; the router's EIP-712 domain adds the chain
///         and the router's address. So whoever sends a message can only carry out exactly what it names, once, on
///         that chain and router, before its deadline.
/// @dev Nonces are unordered: any uint256, used at most once per owner, shared by the five intents. Extra inputs
///      that are not signed by this message (an EIP-2612 permit, an ERC-7741 operator authorisation) carry their
///      own signatures and are only tried: whoever spent them first, what matters is the allowance or operator
///      status they leave, checked before anything moves.
interface INapRouter {
    /// @notice The five signed intents, in the order of the `SignedAction` event's `action` field.
    enum Action {
        Deposit,
        Redeem,
        RequestRedeem,
        Claim,
        CancelRedeem
    }

    /// @notice Deposit `assets` of `owner` into `vault` for `receiver`, refused below `minShares` shares.
    /// @param owner Signer; pays the assets.
    /// @param vault ERC-4626 vault.
    /// @param assets Assets to deposit (the vault's asset, in its base units).
    /// @param receiver Receives the shares.
    /// @param minShares Fewest shares accepted.
    /// @param nonce Any value the owner has not used (or invalidated) with this router.
    /// @param deadline Last timestamp at which the message may be carried out.
    struct Deposit {
        address owner;
        address vault;
        uint256 assets;
        address receiver;
        uint256 minShares;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice Redeem `shares` of `owner` from a synchronous `vault`, assets to `receiver`, refused below
    ///         `minAssets`.
    /// @param owner Signer; its shares are redeemed.
    /// @param vault Synchronous ERC-4626 vault (not ERC-7540).
    /// @param shares Shares to redeem.
    /// @param receiver Receives the assets.
    /// @param minAssets Fewest assets accepted.
    /// @param nonce Any value the owner has not used (or invalidated) with this router.
    /// @param deadline Last timestamp at which the message may be carried out.
    struct Redeem {
        address owner;
        address vault;
        uint256 shares;
        address receiver;
        uint256 minAssets;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice Request the redemption of `shares` of `owner` from an ERC-7540 `vault`, `owner` as controller.
    /// @param owner Signer; owner of the shares and controller of the request.
    /// @param vault ERC-7540 vault.
    /// @param shares Shares to request.
    /// @param nonce Any value the owner has not used (or invalidated) with this router.
    /// @param deadline Last timestamp at which the message may be carried out.
    struct RequestRedeem {
        address owner;
        address vault;
        uint256 shares;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice Claim `shares` of the filled requests `owner` controls in an ERC-7540 `vault`, assets to `receiver`,
    ///         refused below `minAssets`.
    /// @param owner Signer; controller of the requests.
    /// @param vault ERC-7540 vault.
    /// @param shares Claimable shares to claim.
    /// @param receiver Receives the assets.
    /// @param minAssets Fewest assets accepted.
    /// @param nonce Any value the owner has not used (or invalidated) with this router.
    /// @param deadline Last timestamp at which the message may be carried out.
    struct Claim {
        address owner;
        address vault;
        uint256 shares;
        address receiver;
        uint256 minAssets;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice Cancel the pending request `owner` controls in an ERC-7540 / ERC-7887 `vault` and send the canceled
    ///         shares to `receiver`.
    /// @param owner Signer; controller of the request.
    /// @param vault ERC-7540 vault with ERC-7887 cancelation.
    /// @param receiver Receives the canceled shares.
    /// @param nonce Any value the owner has not used (or invalidated) with this router.
    /// @param deadline Last timestamp at which the message may be carried out.
    struct CancelRedeem {
        address owner;
        address vault;
        address receiver;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice An EIP-2612 permit of the vault's asset from the owner to this router; `deadline` 0 means none.
    /// @param value Allowance the permit sets.
    /// @param deadline The permit's deadline (0: no permit).
    /// @param v Signature v.
    /// @param r Signature r.
    /// @param s Signature s.
    struct Permit {
        uint256 value;
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice An ERC-7741 authorisation by the owner making this router its operator on the vault; an empty
    ///         signature means none.
    /// @param nonce The authorisation's nonce (the vault's, per controller).
    /// @param deadline The authorisation's deadline.
    /// @param signature The owner's signature of the vault's AuthorizeOperator typed data.
    struct OperatorAuthorization {
        bytes32 nonce;
        uint256 deadline;
        bytes signature;
    }

    /// @notice Emitted when a signed message is carried out (its nonce is then used).
    /// @param digest The message's EIP-712 digest (hashDeposit, hashRedeem, ...).
    /// @param owner Signer.
    /// @param vault The vault.
    /// @param action Which intent.
    event SignedAction(bytes32 indexed digest, address indexed owner, address indexed vault, Action action);

    /// @notice Emitted when `owner` invalidates `nonce`, so that no message signed with it can be carried out.
    /// @param owner The owner.
    /// @param nonce The nonce.
    event NonceInvalidated(address indexed owner, uint256 indexed nonce);

    /// @notice Thrown when a message is carried out after its `deadline` (at `nowTime`).
    error SignatureExpired(uint256 deadline, uint256 nowTime);

    /// @notice Thrown when `nonce` of `owner` was already used or invalidated.
    error NonceAlreadyUsed(address owner, uint256 nonce);

    /// @notice Thrown when the signature is not `owner`'s (ECDSA, or EIP-1271 for a contract) over `digest`.
    error InvalidSignature(address owner, bytes32 digest);

    /// @notice Thrown when `owner` allows this router `allowance` of the asset, less than the `needed` assets (after
    ///         the permit, if any, was tried).
    error InsufficientAllowance(address owner, uint256 allowance, uint256 needed);

    /// @notice Thrown when `owner` holds `balance` of the asset, less than the `needed` assets.
    error InsufficientBalance(address owner, uint256 balance, uint256 needed);

    /// @notice Thrown when a deposit would mint `shares`, fewer than the signed `minShares`.
    error SharesBelowMinimum(uint256 shares, uint256 minShares);

    /// @notice Thrown when an exit would pay `assets`, fewer than the signed `minAssets`.
    error AssetsBelowMinimum(uint256 assets, uint256 minAssets);

    /// @notice Thrown when a Redeem names an ERC-7540 vault, or a Claim a synchronous one (`asyncExpected` says
    ///         which kind the intent needs): the vault's redeem serves both, so the router tells them apart.
    error WrongVaultKind(address vault, bool asyncExpected);

    /// @notice Thrown when `vault` did not take every asset it was approved for in a deposit, leaving `allowance`.
    error VaultLeftAllowance(address vault, uint256 allowance);

    /// @notice Deposits as `intent` names: tries `permit`, then moves `intent.assets` of the owner's asset through
    ///         the router into the vault for `intent.receiver`.
    /// @dev Reverts SignatureExpired, NonceAlreadyUsed, InvalidSignature, InsufficientAllowance,
    ///      InsufficientBalance, SharesBelowMinimum, or the vault's own error, with nothing moved.
    /// @param intent The signed deposit.
    /// @param signature The owner's signature of hashDeposit(intent).
    /// @param permit An EIP-2612 permit for the router, tried first (deadline 0: none).
    /// @return shares Shares minted to the receiver.
    function deposit(
        Deposit calldata intent,
        bytes calldata signature,
        Permit calldata permit
    ) external returns (uint256 shares);

    /// @notice Redeems as `intent` names from a synchronous vault, as the owner's ERC-7540 operator (or with its
    ///         share allowance), trying `authorization` first when the router is not yet its operator.
    /// @param intent The signed redemption.
    /// @param signature The owner's signature of hashRedeem(intent).
    /// @param authorization An ERC-7741 authorisation making the router the owner's operator (empty: none).
    /// @return assets Assets paid to the receiver.
    function redeem(
        Redeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external returns (uint256 assets);

    /// @notice Requests a redemption as `intent` names (owner and controller: the signer), as its operator.
    /// @param intent The signed request.
    /// @param signature The owner's signature of hashRequestRedeem(intent).
    /// @param authorization An ERC-7741 authorisation making the router the owner's operator (empty: none).
    /// @return requestId The vault's request id (0 for NAP vaults: one request per controller).
    function requestRedeem(
        RequestRedeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external returns (uint256 requestId);

    /// @notice Claims filled requests as `intent` names, as the controller's operator.
    /// @param intent The signed claim.
    /// @param signature The owner's signature of hashClaim(intent).
    /// @param authorization An ERC-7741 authorisation making the router the owner's operator (empty: none).
    /// @return assets Assets paid to the receiver.
    function claim(
        Claim calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external returns (uint256 assets);

    /// @notice Cancels the owner's pending request (if any) and sends every canceled share to the receiver, as
    ///         the controller's operator.
    /// @param intent The signed cancelation.
    /// @param signature The owner's signature of hashCancelRedeem(intent).
    /// @param authorization An ERC-7741 authorisation making the router the owner's operator (empty: none).
    /// @return shares Shares sent back to the receiver.
    function cancelRedeem(
        CancelRedeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external returns (uint256 shares);

    /// @notice Marks `nonce` of the caller used, so that no message it signed with it can be carried out.
    /// @dev Reverts NonceAlreadyUsed if it already is.
    /// @param nonce The nonce.
    function invalidateNonce(uint256 nonce) external;

    /// @notice True when `nonce` of `owner` was used or invalidated.
    /// @param owner The owner.
    /// @param nonce The nonce.
    /// @return used Whether it was.
    function nonceUsed(address owner, uint256 nonce) external view returns (bool used);

    /// @notice The EIP-712 digest a Deposit is signed as (the service's relay id).
    /// @param intent The intent.
    /// @return digest The digest.
    function hashDeposit(Deposit calldata intent) external view returns (bytes32 digest);

    /// @notice The EIP-712 digest a Redeem is signed as.
    /// @param intent The intent.
    /// @return digest The digest.
    function hashRedeem(Redeem calldata intent) external view returns (bytes32 digest);

    /// @notice The EIP-712 digest a RequestRedeem is signed as.
    /// @param intent The intent.
    /// @return digest The digest.
    function hashRequestRedeem(RequestRedeem calldata intent) external view returns (bytes32 digest);

    /// @notice The EIP-712 digest a Claim is signed as.
    /// @param intent The intent.
    /// @return digest The digest.
    function hashClaim(Claim calldata intent) external view returns (bytes32 digest);

    /// @notice The EIP-712 digest a CancelRedeem is signed as.
    /// @param intent The intent.
    /// @return digest The digest.
    function hashCancelRedeem(CancelRedeem calldata intent) external view returns (bytes32 digest);

    /// @notice The router's EIP-712 domain separator (name "NAP Router", version "1", this chain, this router).
    /// @return The separator.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
