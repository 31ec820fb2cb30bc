// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ConfigurableNapVault} from "../../contracts/vaults/ConfigurableNapVault.sol";
import {INapVault} from "../../contracts/interfaces/INapVault.sol";
import {MockUSDC} from "../../contracts/test/MockUSDC.sol";
import {SymTest} from "./Svm.sol";

/// @notice Symbolic proofs (halmos) of the asynchronous vault's (ConfigurableNapVault, ERC-7540 / ERC-7887) core
///         rules for every input within the bounds: a request, cancel, fill, claim or claim of a cancelation of
///         one controller changes no other controller's request (pending shares, ready time, claimable shares and
///         assets, canceled shares) and no other account's balance; totalSupply moves by exactly what the balances
///         move; the vault's balance covers its books and the escrow every claim.
/// @dev The state before each operation is symbolic and written into storage (_seed): any books, any balances of
///      Alice and Bob, and any request of Bob's (pending, ready time, a fill to claim, a cancelation to claim).
///      Amounts up to 2^48 units (shares up to 2^48 * 10^6), ready times up to 400 days ahead, nothing locked and
///      the management fee brought to date. Parameters of the configurable vault (1% / 10% / hurdle 5%, one-day
///      unlock, one-hour fulfilment delay).
contract VaultAsyncSymbolicTest is SymTest {
    uint256 internal constant MAX_AMOUNT = 2 ** 48;
    uint256 internal constant MAX_SHARES = 2 ** 48 * 1e6;
    uint256 internal constant MAX_WAIT = 400 days;
    uint256 internal constant NOW = 1_800_000_000;
    uint256 internal constant SLOT_HOT = 8;
    uint256 internal constant SLOT_TOTAL_CLAIMABLE = 11;
    uint256 internal constant SLOT_REDEEMS = 13;
    /// @dev NapVault's positions (HolderLedger.Position by holder) and its SupplyState (the supply in its low 128
    ///      bits, the fee rates and the hurdle accumulator above).
    uint256 internal constant SLOT_POSITIONS = 16;
    uint256 internal constant SLOT_SUPPLY = 17;
    /// @dev One entry point for every position and request (a price of 2**61, times 2**67, and the accumulator
    ///      at 0, its value at NOW): these proofs cover who owns which shares, not the performance fee, whose
    ///      arithmetic on entry points is tested (NapVault.hurdle.test.ts, the model-based properties), not proven.
    uint256 internal constant ENTRY_PRICE = 2 ** 61;

    address internal constant ALICE = address(0xA11CE);
    address internal constant BOB = address(0xB0B);
    address internal constant CAROL = address(0xCA401);
    address internal constant HARVESTER = address(0x4A4);
    address internal constant STRANGER = address(0x5757);

    MockUSDC internal usdc;
    ConfigurableNapVault internal vault;

    /// @dev The symbolic state of the books and of Bob's request (see _seed).
    struct State {
        uint256 accounted;
        uint256 extra;
        uint256 sa;
        uint256 sb;
        uint256 pending;
        uint256 readyAt;
        uint256 claimShares;
        uint256 claimAssets;
        uint256 canceled;
    }

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
        vm.warp(NOW);
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

    /// @dev Any state of the books, written straight into the vault's storage (slots checked through its getters):
    ///      holders' assets `accounted` (nothing locked, the management fee brought to date), Alice and Bob hold `sa`
    ///      and `sb` shares, Bob has a request of `pending` shares ready at `readyAt`, a fill of `claimShares` for
    ///      `claimAssets` still to claim and `canceled` shares to claim back, all his; the vault holds the pending
    ///      and canceled shares, and `extra` assets beyond its books; the escrow holds the claim. Each proof so
    ///      covers every such state, reachable or not.
    function _seed(State memory st) internal {
        vm.assume(st.accounted <= MAX_AMOUNT && st.extra <= MAX_AMOUNT && st.claimAssets <= MAX_AMOUNT);
        vm.assume(st.sa <= MAX_SHARES && st.sb <= MAX_SHARES && st.pending <= MAX_SHARES);
        vm.assume(st.claimShares <= MAX_SHARES && st.canceled <= MAX_SHARES && st.readyAt <= NOW + MAX_WAIT);
        uint256 held = st.pending + st.canceled;
        uint256 raw = (NOW << 224) | (st.accounted << 160) | (uint256(type(uint32).max) << 128) |
            (uint256(100) << 118);
        vm.store(address(vault), bytes32(SLOT_HOT), bytes32(raw));
        uint256 entry = ENTRY_PRICE << 144;
        vm.store(address(vault), keccak256(abi.encode(ALICE, SLOT_POSITIONS)), bytes32(st.sa | entry));
        vm.store(address(vault), keccak256(abi.encode(BOB, SLOT_POSITIONS)), bytes32(st.sb | entry));
        vm.store(address(vault), keccak256(abi.encode(address(vault), SLOT_POSITIONS)), bytes32(held | entry));
        uint256 rates = uint256(vm.load(address(vault), bytes32(SLOT_SUPPLY))) & ~uint256(type(uint128).max);
        vm.store(address(vault), bytes32(SLOT_SUPPLY), bytes32(rates | (st.sa + st.sb + held)));
        vm.store(address(vault), bytes32(SLOT_TOTAL_CLAIMABLE), bytes32(st.claimAssets));
        // RedeemState: pendingShares | readyAt << 128 | entryMark << 192; the claim; canceledShares | entryPrice << 128.
        uint256 bobSlot = uint256(keccak256(abi.encode(BOB, SLOT_REDEEMS)));
        vm.store(address(vault), bytes32(bobSlot), bytes32((st.readyAt << 128) | st.pending));
        vm.store(address(vault), bytes32(bobSlot + 1), bytes32((st.claimAssets << 128) | st.claimShares));
        vm.store(address(vault), bytes32(bobSlot + 2), bytes32((ENTRY_PRICE << 128) | st.canceled));
        usdc.mint(address(vault), st.accounted + st.extra);
        usdc.mint(vault.redeemEscrow(), st.claimAssets);
        assert(vault.accountedAssets() == st.accounted && vault.lastFeeAccrual() == NOW && vault.hurdleMark() == 0);
        assert(vault.totalSupply() == st.sa + st.sb + held && vault.balanceOf(address(vault)) == held);
        assert(vault.totalClaimableAssets() == st.claimAssets);
        Req memory bob = _req(BOB);
        assert(bob.pending == st.pending && bob.readyAt == st.readyAt && bob.canceled == st.canceled);
        assert(bob.claimableShares == st.claimShares && bob.claimableAssets == st.claimAssets);
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
    function check_requestRedeem(State memory st, uint256 x) public {
        _seed(st);
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
    function check_cancel(State memory st, uint256 x) public {
        _seed(st);
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
    function check_claimCancel(State memory st, uint256 x) public {
        _seed(st);
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

    /// @notice A fill of Alice's request by anyone when the grace period ends burns exactly her pending shares,
    ///         moves their value to the escrow, and touches no other request or balance. The fill's price is
    ///         OpenZeppelin's mulDiv; the proof assumes instances of MathLemmas.t.sol on the very product and
    ///         quotient it computes (its 256-bit branch, check_mul512NarrowRight; a pro-rata share of the holders'
    ///         assets is at most them, check_proRataAtMost), as implications from their bounds.
    function check_fill(State memory st, uint256 x) public {
        _seed(st);
        vm.prank(ALICE);
        vault.requestRedeem(x, ALICE, ALICE);
        // The earliest time anyone may fill: the management fee of that wait is a product by constants.
        vm.warp(block.timestamp + 1 hours + vault.FULFILLMENT_GRACE_PERIOD());
        address other = _other();
        Req memory bob = _req(BOB);
        Req memory out = _req(other);
        Snap memory before = _snap(other);
        uint256 total = vault.totalAssets();
        (uint256 high, uint256 low) = Math.mul512(x, total + 1);
        vm.assume(!(x < 2 ** 161 && total + 1 < 2 ** 65) || high == 0);
        uint256 supply = before.supply;
        vm.assume(!(x <= supply && supply < 2 ** 96 && total < 2 ** 64) || low / (supply + 1e6) <= total);
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
    function check_claim(State memory st, uint256 x, uint256 amount, bool byShares) public {
        _seed(st);
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
