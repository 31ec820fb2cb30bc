// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC7540Operator, IERC7540Redeem, IERC7741, IERC7887Redeem} from "../interfaces/IERC7540.sol";
import {INapRouter} from "../interfaces/INapRouter.sol";

/// @title NapRouter
/// @notice Carries out deposits and redemptions the owner signed (EIP-712; EOA or EIP-1271), whoever sends them.
///         Immutable, without owner or admin; it holds nothing between calls.
/// @dev Every intent is checked the same way before anything moves: the deadline, the owner's signature over the
///      EIP-712 digest of every field, then its nonce is checked unused and marked used. The domain (name "NAP Router",
///      version "1", chain id, this router's address) binds a message to one chain and one deployment. Deposits
///      move the owner's assets through the router, so the owner allows the router (by permit or approval);
///      exits act as the owner's ERC-7540 operator on the vault (set by the owner, or by an ERC-7741 signature
///      passed along).
contract NapRouter is INapRouter, EIP712, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice EIP-712 type hash of Deposit.
    bytes32 public constant DEPOSIT_TYPEHASH = keccak256(
        "Deposit(address owner,address vault,uint256 assets,address receiver,uint256 minShares,uint256 nonce,"
        "uint256 deadline)"
    );
    /// @notice EIP-712 type hash of Redeem.
    bytes32 public constant REDEEM_TYPEHASH = keccak256(
        "Redeem(address owner,address vault,uint256 shares,address receiver,uint256 minAssets,uint256 nonce,"
        "uint256 deadline)"
    );
    /// @notice EIP-712 type hash of RequestRedeem.
    bytes32 public constant REQUEST_REDEEM_TYPEHASH = keccak256(
        "RequestRedeem(address owner,address vault,uint256 shares,uint256 nonce,uint256 deadline)"
    );
    /// @notice EIP-712 type hash of Claim.
    bytes32 public constant CLAIM_TYPEHASH = keccak256(
        "Claim(address owner,address vault,uint256 shares,address receiver,uint256 minAssets,uint256 nonce,"
        "uint256 deadline)"
    );
    /// @notice EIP-712 type hash of CancelRedeem.
    bytes32 public constant CANCEL_REDEEM_TYPEHASH = keccak256(
        "CancelRedeem(address owner,address vault,address receiver,uint256 nonce,uint256 deadline)"
    );

    // Used nonces as bits, 256 to a word (as Permit2's unordered nonces): nonces an owner picks close together share
    // a slot, so each after the first costs a warm write instead of a new slot.
    mapping(address owner => mapping(uint256 word => uint256 bits)) private _usedNonces;

    /// @notice The EIP-712 domain is fixed here: name "NAP Router", version "1", this chain and this address.
    constructor() EIP712("NAP Router", "1") {}

    /// @inheritdoc INapRouter
    function deposit(
        Deposit calldata intent,
        bytes calldata signature,
        Permit calldata permit
    ) external nonReentrant returns (uint256 shares) {
        bytes32 digest = hashDeposit(intent);
        _useSigned(digest, intent.owner, intent.nonce, intent.deadline, signature);
        emit SignedAction(digest, intent.owner, intent.vault, Action.Deposit);
        IERC4626 vault = IERC4626(intent.vault);
        IERC20 asset = IERC20(vault.asset());
        address owner = intent.owner;
        uint256 assets = intent.assets;
        if (permit.deadline != 0) {
            // Whoever used the permit first (a front-runner may), the allowance it set is checked below.
            try
                IERC20Permit(address(asset)).permit(
                    owner,
                    address(this),
                    permit.value,
                    permit.deadline,
                    permit.v,
                    permit.r,
                    permit.s
                )
            {} catch {} // solhint-disable-line no-empty-blocks
        }
        uint256 allowed = asset.allowance(owner, address(this));
        if (allowed < assets) revert InsufficientAllowance(owner, allowed, assets);
        uint256 balance = asset.balanceOf(owner);
        if (balance < assets) revert InsufficientBalance(owner, balance, assets);
        // From the signer of the deposit, which named this amount and vault (see docs/slither-triage.md).
        // slither-disable-next-line arbitrary-send-erc20-permit
        asset.safeTransferFrom(owner, address(this), assets);
        asset.forceApprove(address(vault), assets);
        shares = vault.deposit(assets, intent.receiver);
        if (shares < intent.minShares) revert SharesBelowMinimum(shares, intent.minShares);
        // An ERC-4626 deposit takes exactly `assets`: anything left would stay in the router.
        uint256 left = asset.allowance(address(this), address(vault));
        if (left != 0) revert VaultLeftAllowance(address(vault), left);
    }

    /// @inheritdoc INapRouter
    function redeem(
        Redeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external nonReentrant returns (uint256 assets) {
        bytes32 digest = hashRedeem(intent);
        _useSigned(digest, intent.owner, intent.nonce, intent.deadline, signature);
        emit SignedAction(digest, intent.owner, intent.vault, Action.Redeem);
        _requireKind(intent.vault, false);
        _tryAuthorization(intent.vault, intent.owner, authorization);
        assets = IERC4626(intent.vault).redeem(intent.shares, intent.receiver, intent.owner);
        if (assets < intent.minAssets) revert AssetsBelowMinimum(assets, intent.minAssets);
    }

    /// @inheritdoc INapRouter
    function requestRedeem(
        RequestRedeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external nonReentrant returns (uint256 requestId) {
        bytes32 digest = hashRequestRedeem(intent);
        _useSigned(digest, intent.owner, intent.nonce, intent.deadline, signature);
        emit SignedAction(digest, intent.owner, intent.vault, Action.RequestRedeem);
        _tryAuthorization(intent.vault, intent.owner, authorization);
        requestId = IERC7540Redeem(intent.vault).requestRedeem(intent.shares, intent.owner, intent.owner);
    }

    /// @inheritdoc INapRouter
    function claim(
        Claim calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external nonReentrant returns (uint256 assets) {
        bytes32 digest = hashClaim(intent);
        _useSigned(digest, intent.owner, intent.nonce, intent.deadline, signature);
        emit SignedAction(digest, intent.owner, intent.vault, Action.Claim);
        _requireKind(intent.vault, true);
        _tryAuthorization(intent.vault, intent.owner, authorization);
        assets = IERC4626(intent.vault).redeem(intent.shares, intent.receiver, intent.owner);
        if (assets < intent.minAssets) revert AssetsBelowMinimum(assets, intent.minAssets);
    }

    /// @inheritdoc INapRouter
    function cancelRedeem(
        CancelRedeem calldata intent,
        bytes calldata signature,
        OperatorAuthorization calldata authorization
    ) external nonReentrant returns (uint256 shares) {
        bytes32 digest = hashCancelRedeem(intent);
        _useSigned(digest, intent.owner, intent.nonce, intent.deadline, signature);
        emit SignedAction(digest, intent.owner, intent.vault, Action.CancelRedeem);
        _tryAuthorization(intent.vault, intent.owner, authorization);
        IERC7887Redeem vault = IERC7887Redeem(intent.vault);
        // A request canceled already (by the owner or another of its operators) leaves only the claim to make.
        if (IERC7540Redeem(intent.vault).pendingRedeemRequest(0, intent.owner) != 0) {
            vault.cancelRedeemRequest(0, intent.owner);
        }
        shares = vault.claimableCancelRedeemRequest(0, intent.owner);
        vault.claimCancelRedeemRequest(0, intent.receiver, intent.owner);
    }

    /// @inheritdoc INapRouter
    function invalidateNonce(uint256 nonce) external {
        _useNonce(msg.sender, nonce);
        emit NonceInvalidated(msg.sender, nonce);
    }

    /// @inheritdoc INapRouter
    function nonceUsed(address owner, uint256 nonce) external view returns (bool) {
        return _usedNonces[owner][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @inheritdoc INapRouter
    function hashDeposit(Deposit calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(DEPOSIT_TYPEHASH, intent)));
    }

    /// @inheritdoc INapRouter
    function hashRedeem(Redeem calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(REDEEM_TYPEHASH, intent)));
    }

    /// @inheritdoc INapRouter
    function hashRequestRedeem(RequestRedeem calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(REQUEST_REDEEM_TYPEHASH, intent)));
    }

    /// @inheritdoc INapRouter
    function hashClaim(Claim calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(CLAIM_TYPEHASH, intent)));
    }

    /// @inheritdoc INapRouter
    function hashCancelRedeem(CancelRedeem calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(CANCEL_REDEEM_TYPEHASH, intent)));
    }

    /// @inheritdoc INapRouter
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev The checks every intent passes before anything moves; the nonce is used before any external call.
    function _useSigned(
        bytes32 digest,
        address owner,
        uint256 nonce,
        uint256 deadline,
        bytes calldata signature
    ) private {
        if (block.timestamp > deadline) revert SignatureExpired(deadline, block.timestamp);
        if (!SignatureChecker.isValidSignatureNowCalldata(owner, digest, signature)) {
            revert InvalidSignature(owner, digest);
        }
        _useNonce(owner, nonce);
    }

    /// @dev Marks `nonce` of `owner` used, or reverts NonceAlreadyUsed.
    function _useNonce(address owner, uint256 nonce) private {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 bits = _usedNonces[owner][nonce >> 8];
        if (bits & bit != 0) revert NonceAlreadyUsed(owner, nonce);
        _usedNonces[owner][nonce >> 8] = bits | bit;
    }

    /// @dev The vault's ERC-4626 redeem serves a synchronous exit and an ERC-7540 claim alike; ERC-165 tells them
    ///      apart, so that a signed Redeem never claims and a signed Claim never redeems held shares.
    function _requireKind(address vault, bool asyncExpected) private view {
        if (_isAsync(vault) != asyncExpected) revert WrongVaultKind(vault, asyncExpected);
    }

    /// @dev A vault without ERC-165 is a synchronous ERC-4626 vault.
    function _isAsync(address vault) private view returns (bool) {
        try IERC165(vault).supportsInterface(type(IERC7540Redeem).interfaceId) returns (bool supported) {
            return supported;
        } catch {
            return false;
        }
    }

    /// @dev Whoever used the authorisation first (a front-runner may), the vault checks the operator status it
    ///      left when the router acts.
    function _tryAuthorization(address vault, address owner, OperatorAuthorization calldata authorization) private {
        if (authorization.signature.length == 0) return;
        if (IERC7540Operator(vault).isOperator(owner, address(this))) return;
        // The operator status the attempt leaves is what counts (see docs/slither-triage.md).
        // slither-disable-next-line unused-return
        try
            IERC7741(vault).authorizeOperator(
                owner,
                address(this),
                true,
                authorization.nonce,
                authorization.deadline,
                authorization.signature
            )
        returns (bool) {} catch {} // solhint-disable-line no-empty-blocks
    }
}
