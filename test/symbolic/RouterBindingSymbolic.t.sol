// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {INapRouter} from "../../contracts/interfaces/INapRouter.sol";
import {NapRouter} from "../../contracts/router/NapRouter.sol";
import {MockUSDC} from "../../contracts/test/MockUSDC.sol";
import {RouterLazyVault} from "../../contracts/test/RouterLazyVault.sol";
import {SymTest} from "./Svm.sol";

/// @notice The signer of the symbolic proofs: an EIP-1271 wallet that accepts exactly one digest, the one its owner
///         signed. It stands for any signature scheme under which a signature is valid for one message only.
contract OneDigestWallet is IERC1271 {
    /// @notice The one digest this wallet's signature is valid for.
    bytes32 public accepted;

    /// @notice Signs `digest`: from now on only it is accepted.
    /// @param digest The signed digest.
    function sign(bytes32 digest) external {
        accepted = digest;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes memory) external view returns (bytes4) {
        return hash == accepted ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// @notice Symbolic proofs (halmos) of NapRouter's binding rule, for all intents: a signature valid for one intent
///         (its owner signed that intent's EIP-712 digest) is refused, with InvalidSignature and before anything
///         moves, for every other intent of the same owner: any vault, amount, receiver, minimum, nonce or deadline
///         changed, the same fields as another intent type (a Redeem's signature as a Claim), or the same intent on
///         another router (deployment). And the signed intent itself passes the signature check.
/// @dev The owner is an EIP-1271 wallet that accepts exactly the digest it signed (OneDigestWallet): halmos models
///      ecrecover as an uninterpreted function, constrained only on digests its `sign` cheatcode produced, so an EOA's
///      refusal of an unsigned digest rests on ECDSA's unforgeability, which the tool does not express; the unit and
///      fast-check tests (test/contracts/router) cover EOAs with real signatures. What is proven here is the router's
///      part: every field and the type, chain and router reach the digest the signer is asked about, so no two
///      different intents share a digest (keccak256 modelled without collisions). Deadlines are taken from now on
///      (an expired one is refused earlier, SignatureExpired).
contract RouterBindingSymbolicTest is SymTest {
    uint256 internal constant NOW = 1_800_000_000;
    address internal constant RELAYER = address(0x4E1A7);
    bytes internal constant SIGNATURE = hex"51";

    NapRouter internal router;
    NapRouter internal otherRouter;
    OneDigestWallet internal owner;
    MockUSDC internal usdc;
    RouterLazyVault internal vault;

    function setUp() public {
        vm.warp(NOW);
        router = new NapRouter();
        otherRouter = new NapRouter();
        owner = new OneDigestWallet();
        usdc = new MockUSDC();
        vault = new RouterLazyVault(address(usdc));
    }

    function _noPermit() internal pure returns (INapRouter.Permit memory) {
        return INapRouter.Permit(0, 0, 0, bytes32(0), bytes32(0));
    }

    function _noAuthorization() internal pure returns (INapRouter.OperatorAuthorization memory) {
        return INapRouter.OperatorAuthorization(bytes32(0), 0, "");
    }

    /// @dev The call `data` to `target` by the relayer reverts with InvalidSignature(owner, `digest`).
    function _assertInvalidSignature(address target, bytes memory data, bytes32 digest) internal {
        vm.prank(RELAYER);
        (bool ok, bytes memory reason) = target.call(data);
        assert(!ok);
        assert(
            keccak256(reason) ==
                keccak256(abi.encodeWithSelector(INapRouter.InvalidSignature.selector, address(owner), digest))
        );
    }

    /// @dev An intent of `owner` with every other field symbolic, named after `tag`.
    function _symDeposit(string memory tag) internal returns (INapRouter.Deposit memory d) {
        d.owner = address(owner);
        d.vault = svm.createAddress(string.concat(tag, ".vault"));
        d.assets = svm.createUint256(string.concat(tag, ".assets"));
        d.receiver = svm.createAddress(string.concat(tag, ".receiver"));
        d.minShares = svm.createUint256(string.concat(tag, ".minShares"));
        d.nonce = svm.createUint256(string.concat(tag, ".nonce"));
        d.deadline = svm.createUint256(string.concat(tag, ".deadline"));
    }

    /// @dev A Redeem's fields, symbolic (a Claim has the same ones).
    function _symRedeem(string memory tag) internal returns (INapRouter.Redeem memory r) {
        r.owner = address(owner);
        r.vault = svm.createAddress(string.concat(tag, ".vault"));
        r.shares = svm.createUint256(string.concat(tag, ".shares"));
        r.receiver = svm.createAddress(string.concat(tag, ".receiver"));
        r.minAssets = svm.createUint256(string.concat(tag, ".minAssets"));
        r.nonce = svm.createUint256(string.concat(tag, ".nonce"));
        r.deadline = svm.createUint256(string.concat(tag, ".deadline"));
    }

    function _asClaim(INapRouter.Redeem memory r) internal pure returns (INapRouter.Claim memory) {
        return INapRouter.Claim(r.owner, r.vault, r.shares, r.receiver, r.minAssets, r.nonce, r.deadline);
    }

    function _differ(INapRouter.Deposit memory a, INapRouter.Deposit memory b) internal pure returns (bool) {
        return
            a.vault != b.vault ||
            a.assets != b.assets ||
            a.receiver != b.receiver ||
            a.minShares != b.minShares ||
            a.nonce != b.nonce ||
            a.deadline != b.deadline;
    }

    function _differ(INapRouter.Redeem memory a, INapRouter.Redeem memory b) internal pure returns (bool) {
        return
            a.vault != b.vault ||
            a.shares != b.shares ||
            a.receiver != b.receiver ||
            a.minAssets != b.minAssets ||
            a.nonce != b.nonce ||
            a.deadline != b.deadline;
    }

    /// @notice A Deposit signed with any fields is refused for any Deposit that differs in at least one field.
    function check_depositBinding() public {
        INapRouter.Deposit memory signed = _symDeposit("a");
        INapRouter.Deposit memory other = _symDeposit("b");
        vm.assume(other.deadline >= NOW);
        vm.assume(_differ(signed, other));
        owner.sign(router.hashDeposit(signed));
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.deposit, (other, SIGNATURE, _noPermit())),
            router.hashDeposit(other)
        );
    }

    /// @notice The signed Deposit itself passes the signature check: the owner's missing allowance stops it next,
    ///         with nothing moved (so the refusals above are not the wallet refusing everything).
    function check_depositSignedPasses() public {
        INapRouter.Deposit memory intent = _symDeposit("a");
        intent.vault = address(vault);
        vm.assume(intent.assets > 0 && intent.deadline >= NOW);
        owner.sign(router.hashDeposit(intent));
        vm.prank(RELAYER);
        (bool ok, bytes memory reason) = address(router).call(
            abi.encodeCall(router.deposit, (intent, SIGNATURE, _noPermit()))
        );
        assert(!ok);
        assert(
            keccak256(reason) ==
                keccak256(
                    abi.encodeWithSelector(INapRouter.InsufficientAllowance.selector, address(owner), 0, intent.assets)
                )
        );
    }

    /// @notice A Deposit signed for one router is refused by another deployment (the domain names the router).
    function check_depositBoundToItsRouter() public {
        INapRouter.Deposit memory intent = _symDeposit("a");
        vm.assume(intent.deadline >= NOW);
        owner.sign(router.hashDeposit(intent));
        _assertInvalidSignature(
            address(otherRouter),
            abi.encodeCall(otherRouter.deposit, (intent, SIGNATURE, _noPermit())),
            otherRouter.hashDeposit(intent)
        );
    }

    /// @notice A Redeem signed with any fields is refused for any Redeem that differs in at least one field, and
    ///         for the Claim of exactly the same fields (the type is signed).
    function check_redeemBinding() public {
        INapRouter.Redeem memory signed = _symRedeem("a");
        INapRouter.Redeem memory other = _symRedeem("b");
        vm.assume(signed.deadline >= NOW && other.deadline >= NOW);
        owner.sign(router.hashRedeem(signed));
        INapRouter.Claim memory asClaim = _asClaim(signed);
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.claim, (asClaim, SIGNATURE, _noAuthorization())),
            router.hashClaim(asClaim)
        );
        vm.assume(_differ(signed, other));
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.redeem, (other, SIGNATURE, _noAuthorization())),
            router.hashRedeem(other)
        );
    }

    /// @notice A Claim signed with any fields is refused for any Claim that differs in at least one field, and for
    ///         the Redeem of exactly the same fields.
    function check_claimBinding() public {
        INapRouter.Redeem memory signedFields = _symRedeem("a");
        INapRouter.Redeem memory otherFields = _symRedeem("b");
        vm.assume(signedFields.deadline >= NOW && otherFields.deadline >= NOW);
        owner.sign(router.hashClaim(_asClaim(signedFields)));
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.redeem, (signedFields, SIGNATURE, _noAuthorization())),
            router.hashRedeem(signedFields)
        );
        vm.assume(_differ(signedFields, otherFields));
        INapRouter.Claim memory other = _asClaim(otherFields);
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.claim, (other, SIGNATURE, _noAuthorization())),
            router.hashClaim(other)
        );
    }

    /// @notice A RequestRedeem signed with any fields is refused for any RequestRedeem that differs in a field.
    function check_requestRedeemBinding() public {
        INapRouter.RequestRedeem memory signed = INapRouter.RequestRedeem(
            address(owner),
            svm.createAddress("a.vault"),
            svm.createUint256("a.shares"),
            svm.createUint256("a.nonce"),
            svm.createUint256("a.deadline")
        );
        INapRouter.RequestRedeem memory other = INapRouter.RequestRedeem(
            address(owner),
            svm.createAddress("b.vault"),
            svm.createUint256("b.shares"),
            svm.createUint256("b.nonce"),
            svm.createUint256("b.deadline")
        );
        vm.assume(other.deadline >= NOW);
        vm.assume(
            signed.vault != other.vault ||
                signed.shares != other.shares ||
                signed.nonce != other.nonce ||
                signed.deadline != other.deadline
        );
        owner.sign(router.hashRequestRedeem(signed));
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.requestRedeem, (other, SIGNATURE, _noAuthorization())),
            router.hashRequestRedeem(other)
        );
    }

    /// @notice A CancelRedeem signed with any fields is refused for any CancelRedeem that differs in a field.
    function check_cancelRedeemBinding() public {
        INapRouter.CancelRedeem memory signed = INapRouter.CancelRedeem(
            address(owner),
            svm.createAddress("a.vault"),
            svm.createAddress("a.receiver"),
            svm.createUint256("a.nonce"),
            svm.createUint256("a.deadline")
        );
        INapRouter.CancelRedeem memory other = INapRouter.CancelRedeem(
            address(owner),
            svm.createAddress("b.vault"),
            svm.createAddress("b.receiver"),
            svm.createUint256("b.nonce"),
            svm.createUint256("b.deadline")
        );
        vm.assume(other.deadline >= NOW);
        vm.assume(
            signed.vault != other.vault ||
                signed.receiver != other.receiver ||
                signed.nonce != other.nonce ||
                signed.deadline != other.deadline
        );
        owner.sign(router.hashCancelRedeem(signed));
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.cancelRedeem, (other, SIGNATURE, _noAuthorization())),
            router.hashCancelRedeem(other)
        );
    }

    /// @notice A signature of one intent type is refused for the other types whose fields encode alike: a Deposit's
    ///         as the Redeem and the Claim of the same words, a RequestRedeem's as the CancelRedeem of the same words.
    function check_typesBound() public {
        INapRouter.Deposit memory d = _symDeposit("a");
        vm.assume(d.deadline >= NOW);
        owner.sign(router.hashDeposit(d));
        INapRouter.Redeem memory r = INapRouter.Redeem(
            d.owner,
            d.vault,
            d.assets,
            d.receiver,
            d.minShares,
            d.nonce,
            d.deadline
        );
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.redeem, (r, SIGNATURE, _noAuthorization())),
            router.hashRedeem(r)
        );
        INapRouter.Claim memory c = _asClaim(r);
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.claim, (c, SIGNATURE, _noAuthorization())),
            router.hashClaim(c)
        );
        INapRouter.RequestRedeem memory q = INapRouter.RequestRedeem(
            address(owner),
            svm.createAddress("q.vault"),
            uint256(uint160(svm.createAddress("q.receiver"))),
            svm.createUint256("q.nonce"),
            NOW
        );
        owner.sign(router.hashRequestRedeem(q));
        INapRouter.CancelRedeem memory k = INapRouter.CancelRedeem(
            q.owner,
            q.vault,
            address(uint160(q.shares)),
            q.nonce,
            q.deadline
        );
        _assertInvalidSignature(
            address(router),
            abi.encodeCall(router.cancelRedeem, (k, SIGNATURE, _noAuthorization())),
            router.hashCancelRedeem(k)
        );
    }
}
