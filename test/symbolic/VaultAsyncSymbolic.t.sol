// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ConfigurableNapVault} from "../../contracts/vaults/ConfigurableNapVault.sol";
import {INapVault} from "../../contracts/interfaces/INapVault.sol";
import {MockUSDC} from "../../contracts/test/MockUSDC.sol";
import {SymTest} from "./Svm.sol";

/// @notice Symbolic proofs (halmos) of the asynchronous vault's (ConfigurableNapVault, ERC-7540 / ERC-7887) core
///         rules for every input within the bounds: a request, cancel, fill, claim or claim of a cancelation of
///         one controller changes no other controller's request (pending shares, ready time, claimable shares and
///         assets, canceled shares) and no other account's balance; totalSupply moves by exactly what the balances
///         move; the vault's balance covers its books and the escrow every claim.
/// @dev The state before each operation is symbolic: Alice and Bob deposit any amounts, Bob requests any part of
///      his shares, time passes, a report of any gain, time passes. Amounts up to 2^48 units, waits up to 400 days.
///      Parameters of the configurable vault (1% / 10% / hurdle 5%, one-day unlock, one-hour fulfilment delay).
contract VaultAsyncSymbolicTest is SymTest {
    uint256 internal constant MAX_AMOUNT = 2 ** 48;
    uint256 internal constant MAX_WAIT = 400 days;

    address internal constant ALICE = address(0xA11CE);
    address internal constant BOB = address(0xB0B);
    address internal constant CAROL = address(0xCA401);
    address internal constant HARVESTER = address(0x4A4);
    address internal constant STRANGER = address(0x5757);

    MockUSDC internal usdc;
    ConfigurableNapVault internal vault;

    /// @dev One controller's request.
    struct Req {
        uint256 pending;
        uint256 readyAt;
        uint256 claimableShares;
        uint256 claimableAssets;
        uint256 canceled;
    }

    /// @dev Share balances and totalSupply.
    struct Snap {
        uint256 alice;
        uint256 bob;
        uint256 carol;
        uint256 self;
        uint256 other;
        uint256 supply;
    }

    function setUp() public {
        // A concrete start time: halmos' initial timestamp is symbolic, and no chain is near 2^64 seconds.
        vm.warp(1_800_000_000);
        usdc = new MockUSDC();
        INapVault.VaultParams memory params = INapVault.VaultParams({
            asset: IERC20(address(usdc)),
            name: "NAP Configurable USDC",
            symbol: "napCFG",
            riskLevel: INapVault.RiskLevel.MODERATE,
            asyncRedeem: true,
            managementFeeBps: 100,
            performanceFeeBps: 1000,
            hurdleRateBps: 500,
            depositCap: type(uint256).max,
            profitUnlockPeriod: 1 days,
            fulfillmentDelay: 1 hours,
            feeRecipient: address(0xFEE)
        });
        INapVault.VaultRoles memory roles = INapVault.VaultRoles({
            admin: address(this),
            manager: address(0),
            harvester: HARVESTER,
            guardian: address(0),
            fulfiller: address(0)
        });
        vault = new ConfigurableNapVault(params, roles, new INapVault.Allocation[](0));
        address[3] memory users = [ALICE, BOB, HARVESTER];
        for (uint256 i = 0; i < users.length; ++i) {
            vm.prank(users[i]);
            usdc.approve(address(vault), type(uint256).max);
        }
    }

    function _seed(uint256 a0, uint256 b0, uint256 rb, uint256 gain, uint256 dt1, uint256 dt2) internal {
        vm.assume(a0 > 0 && a0 <= MAX_AMOUNT && b0 > 0 && b0 <= MAX_AMOUNT && gain <= MAX_AMOUNT);
        vm.assume(dt1 <= MAX_WAIT && dt2 <= MAX_WAIT);
        _deposit(ALICE, a0);
        uint256 bobShares = _deposit(BOB, b0);
        vm.assume(rb > 0 && rb <= bobShares);
        vm.prank(BOB);
        vault.requestRedeem(rb, BOB, BOB);
        vm.warp(block.timestamp + dt1);
        usdc.mint(HARVESTER, gain);
        vm.prank(HARVESTER);
        vault.report(gain);
        vm.warp(block.timestamp + dt2);
    }

    function _deposit(address who, uint256 assets) internal returns (uint256) {
        usdc.mint(who, assets);
        vm.prank(who);
        return vault.deposit(assets, who);
    }

    function _other() internal view returns (address other) {
        other = svm.createAddress("other");
        vm.assume(other != ALICE && other != BOB && other != CAROL && other != address(vault));
    }

    function _req(address controller) internal view returns (Req memory r) {
        r.pending = vault.pendingRedeemRequest(0, controller);
        r.readyAt = vault.pendingRedeemReadyAt(controller);
        r.claimableShares = vault.claimableRedeemRequest(0, controller);
        r.claimableAssets = vault.maxWithdraw(controller);
        r.canceled = vault.claimableCancelRedeemRequest(0, controller);
    }

    function _same(Req memory a, Req memory b) internal pure {
        assert(a.pending == b.pending);
        assert(a.readyAt == b.readyAt);
        assert(a.claimableShares == b.claimableShares);
        assert(a.claimableAssets == b.claimableAssets);
        assert(a.canceled == b.canceled);
    }

    function _snap(address other) internal view returns (Snap memory s) {
        s.alice = vault.balanceOf(ALICE);
        s.bob = vault.balanceOf(BOB);
        s.carol = vault.balanceOf(CAROL);
        s.self = vault.balanceOf(address(vault));
        s.other = vault.balanceOf(other);
        s.supply = vault.totalSupply();
    }

    /// @dev totalSupply moved by what the balances moved; Bob's balance and every outsider's are untouched.
    function _balances(Snap memory a, Snap memory b) internal pure {
        assert(b.bob == a.bob && b.other == a.other);
        unchecked {
            assert(
                b.supply - a.supply ==
                    (b.alice - a.alice) + (b.bob - a.bob) + (b.carol - a.carol) + (b.self - a.self)
            );
        }
    }

    function _covers() internal view {
        assert(usdc.balanceOf(address(vault)) >= vault.accountedAssets());
        assert(usdc.balanceOf(vault.redeemEscrow()) >= vault.totalClaimableAssets());
    }

    /// @notice Alice's request moves only her shares into the vault and touches no other request.
    function check_requestRedeem(uint256 a0, uint256 b0, uint256 rb, uint256 gain, uint256 dt1, uint256 dt2, uint256 x)
        public
    {
        _seed(a0, b0, rb, gain, dt1, dt2);
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        Snap memory after_ = _snap(other);
        _same(bob, _req(BOB));
        _same(out, _req(other));
        _balances(before, after_);
        assert(after_.alice == before.alice - x && after_.self == before.self + x && after_.supply == before.supply);
        assert(vault.pendingRedeemReadyAt(ALICE) == block.timestamp + 1 hours);
        _covers();
    }

    /// @notice Alice's cancelation makes exactly her pending shares claimable back, and touches nothing else.
    function check_cancel(uint256 a0, uint256 b0, uint256 rb, uint256 gain, uint256 dt1, uint256 dt2, uint256 x)
        public
    {
        _seed(a0, b0, rb, gain, dt1, dt2);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        vm.prank(ALICE);
        vault.cancelRedeemRequest(0, ALICE);
        Snap memory after_ = _snap(other);
        _same(bob, _req(BOB));
        _same(out, _req(other));
        _balances(before, after_);
        assert(after_.supply == before.supply && after_.self == before.self);
        assert(vault.claimableCancelRedeemRequest(0, ALICE) == x && vault.pendingRedeemRequest(0, ALICE) == 0);
        _covers();
    }

    /// @notice Claiming a cancelation pays exactly the canceled shares to the receiver, and touches nothing else.
    function check_claimCancel(uint256 a0, uint256 b0, uint256 rb, uint256 gain, uint256 dt1, uint256 dt2, uint256 x)
        public
    {
        _seed(a0, b0, rb, gain, dt1, dt2);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        vm.prank(ALICE);
        vault.cancelRedeemRequest(0, ALICE);
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        vm.prank(ALICE);
        vault.claimCancelRedeemRequest(0, CAROL, ALICE);
        Snap memory after_ = _snap(other);
        _same(bob, _req(BOB));
        _same(out, _req(other));
        _balances(before, after_);
        assert(after_.carol == before.carol + x && after_.self == before.self - x && after_.alice == before.alice);
        _covers();
    }

    /// @notice A fill of Alice's request by anyone after the grace period burns exactly her pending shares, moves
    ///         their value to the escrow, and touches no other request or balance.
    function check_fill(
        uint256 a0,
        uint256 b0,
        uint256 rb,
        uint256 gain,
        uint256 dt1,
        uint256 dt2,
        uint256 x,
        uint256 wait
    ) public {
        _seed(a0, b0, rb, gain, dt1, dt2);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        vm.assume(wait <= MAX_WAIT);
        vm.warp(block.timestamp + wait);
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        vm.prank(STRANGER);
        uint256 assets = vault.fulfillRedeem(ALICE);
        Snap memory after_ = _snap(other);
        _same(bob, _req(BOB));
        _same(out, _req(other));
        _balances(before, after_);
        assert(after_.self == before.self - x && after_.supply == before.supply - x && after_.alice == before.alice);
        Req memory alice = _req(ALICE);
        assert(alice.pending == 0 && alice.claimableShares == x && alice.claimableAssets == assets);
        _covers();
    }

    /// @notice A partial or whole claim (redeem or withdraw) of Alice's fill pays from the escrow, within her
    ///         claim, and touches no other request or balance.
    function check_claim(
        uint256 a0,
        uint256 b0,
        uint256 rb,
        uint256 gain,
        uint256 dt1,
        uint256 dt2,
        uint256 x,
        uint256 amount,
        bool byShares
    ) public {
        _seed(a0, b0, rb, gain, dt1, dt2);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        vm.warp(block.timestamp + 2 hours);
        vm.prank(STRANGER);
        uint256 filled = vault.fulfillRedeem(ALICE);
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        uint256 paid = amount;
        vm.prank(ALICE);
        if (byShares) paid = vault.redeem(amount, CAROL, ALICE);
        else vault.withdraw(amount, CAROL, ALICE);
        Snap memory after_ = _snap(other);
        _same(bob, _req(BOB));
        _same(out, _req(other));
        _balances(before, after_);
        assert(after_.supply == before.supply);
        assert(usdc.balanceOf(CAROL) == paid && paid <= filled);
        _covers();
    }
}
