// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {NapVault} from "../../contracts/vaults/NapVault.sol";
import {INapVault} from "../../contracts/interfaces/INapVault.sol";
import {MockUSDC} from "../../contracts/test/MockUSDC.sol";
import {SymTest} from "./Svm.sol";

/// @notice The Foundry VM's key cheatcodes, which halmos models symbolically: `addr` of a symbolic key is a symbolic
///         address, and `sign` gives a symbolic signature that ecrecover maps back to it for that digest only.
interface VmKeys {
    function addr(uint256 privateKey) external returns (address);
    function sign(uint256 privateKey, bytes32 digest) external returns (uint8 v, bytes32 r, bytes32 s);
}

/// @notice Symbolic proofs (halmos) of ERC-7741 on NapVault, for any key, operator, approval, nonce and deadline:
///         the controller's own signature of its message sets exactly that operator of exactly that controller and
///         nothing else, uses the nonce once, and a used nonce or a passed deadline refuses it.
/// @dev Out of reach: "no one but the digest's signer can set an operator". halmos models ecrecover as an
///      uninterpreted function, constrained only on the digests `sign` produced: for any other digest it may return
///      any address, the controller's included, so a message the controller never signed is not refused in the
///      model (that rests on ECDSA's unforgeability, which the tool does not express). The unit and property tests
///      of NapVault.authorizeOperator.test.ts cover it with real signatures.
contract Vault7741SymbolicTest is SymTest {
    uint256 internal constant NOW = 1_800_000_000;
    address internal constant RELAYER = address(0x4E1A7);
    VmKeys internal constant keys = VmKeys(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    bytes32 internal constant TYPEHASH = keccak256(
        "AuthorizeOperator(address controller,address operator,bool approved,bytes32 nonce,uint256 deadline)"
    );

    MockUSDC internal usdc;
    NapVault internal vault;

    function setUp() public {
        vm.warp(NOW);
        usdc = new MockUSDC();
        INapVault.VaultParams memory params = INapVault.VaultParams({
            asset: IERC20(address(usdc)),
            name: "NAP Moderate USDC",
            symbol: "napMOD",
            riskLevel: INapVault.RiskLevel.MODERATE,
            asyncRedeem: false,
            managementFeeBps: 100,
            performanceFeeBps: 1_500,
            hurdleRateBps: 500,
            depositCap: type(uint256).max,
            profitUnlockPeriod: 3 days,
            fulfillmentDelay: 0,
            feeRecipient: address(0xFEE)
        });
        INapVault.VaultRoles memory roles = INapVault.VaultRoles({
            admin: address(this),
            manager: address(0),
            harvester: address(0),
            guardian: address(0),
            fulfiller: address(0)
        });
        vault = new NapVault(params, roles, new INapVault.Allocation[](0));
    }

    /// @dev A controller with no code (an EOA: the key's address, none of the deployed contracts) and its signature
    ///      of the message, over the vault's own domain.
    function _signed(
        uint256 key,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline
    ) internal returns (address controller, bytes memory signature) {
        controller = keys.addr(key);
        vm.assume(controller.code.length == 0 && controller != address(0));
        bytes32 structHash = keccak256(abi.encode(TYPEHASH, controller, operator, approved, nonce, deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", vault.DOMAIN_SEPARATOR(), structHash));
        (uint8 v, bytes32 r, bytes32 s) = keys.sign(key, digest);
        signature = abi.encodePacked(r, s, v);
    }

    /// @notice The controller's signature of its message, submitted by anyone before the deadline with a fresh
    ///         nonce, sets that operator of that controller to `approved`, uses that nonce, and changes no other
    ///         controller's operator or nonce; submitted again it reverts.
    function check_authorizeOperatorSetsOnlyItsPair(
        uint256 key,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline,
        address otherController,
        address otherOperator,
        bytes32 otherNonce
    ) public {
        vm.assume(deadline >= NOW);
        (address controller, bytes memory signature) = _signed(key, operator, approved, nonce, deadline);
        vm.assume(otherController != controller);
        bool otherBefore = vault.isOperator(otherController, otherOperator);
        bool sameControllerBefore = vault.isOperator(controller, otherOperator);

        vm.prank(RELAYER);
        assert(vault.authorizeOperator(controller, operator, approved, nonce, deadline, signature));

        assert(vault.isOperator(controller, operator) == approved);
        assert(vault.authorizations(controller, nonce));
        assert(vault.isOperator(otherController, otherOperator) == otherBefore);
        assert(!vault.authorizations(otherController, otherNonce));
        if (otherOperator != operator) assert(vault.isOperator(controller, otherOperator) == sameControllerBefore);
        if (otherNonce != nonce) assert(!vault.authorizations(controller, otherNonce));
        _assertRefused(
            abi.encodeCall(vault.authorizeOperator, (controller, operator, approved, nonce, deadline, signature))
        );
    }

    /// @dev The call `data` to the vault, by the relayer, reverts.
    function _assertRefused(bytes memory data) internal {
        vm.prank(RELAYER);
        (bool ok, ) = address(vault).call(data);
        assert(!ok);
    }

    /// @notice A signed message whose nonce its controller invalidated, or whose deadline passed, changes nothing.
    function check_authorizeOperatorRefusedAfterInvalidationOrDeadline(
        uint256 key,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline,
        bool invalidate,
        uint256 submittedAt
    ) public {
        (address controller, bytes memory signature) = _signed(key, operator, approved, nonce, deadline);
        vm.assume(submittedAt >= NOW);
        if (invalidate) {
            vm.prank(controller);
            vault.invalidateNonce(nonce);
        } else {
            vm.assume(submittedAt > deadline);
        }
        vm.warp(submittedAt);
        bool before = vault.isOperator(controller, operator);
        _assertRefused(
            abi.encodeCall(vault.authorizeOperator, (controller, operator, approved, nonce, deadline, signature))
        );
        assert(vault.isOperator(controller, operator) == before);
    }
}
