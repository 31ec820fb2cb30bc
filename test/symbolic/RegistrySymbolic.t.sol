// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {StrategyRegistryV3} from "../../contracts/registry/StrategyRegistryV3.sol";
import {IStrategyRegistryV3} from "../../contracts/interfaces/IStrategyRegistryV3.sol";
import {SymTest} from "./Svm.sol";

/// @notice Symbolic proof (halmos) that StrategyRegistryV3 admits only the moves of its transition table
///         (IStrategyRegistryV3): from every lifecycle state, with or without a ballot already cast in the review,
///         any one call of any lifecycle function, by any of the role holders or a stranger, with any vote and after
///         any wait, either leaves the status as it was or makes a listed move by the listed role.
/// @dev Two guardians and two oracles with thresholds of 2, so that votes both decide and leave a review open.
contract RegistrySymbolicTest is SymTest {
    uint8 internal constant SHADOW = 0;
    uint8 internal constant GUARDIAN_REVIEW = 1;
    uint8 internal constant PAPER_TRADING = 2;
    uint8 internal constant PENDING_ORACLE = 3;
    uint8 internal constant LIVE = 4;
    uint8 internal constant PAUSED = 5;
    uint8 internal constant DEPRECATED = 6;
    uint256 internal constant MIN_PAPER = 7 days;

    address internal constant SCREENER = address(0x5C);
    address internal constant GUARDIAN1 = address(0x61);
    address internal constant GUARDIAN2 = address(0x62);
    address internal constant MANAGER = address(0x3A);
    address internal constant ORACLE1 = address(0x01);
    address internal constant ORACLE2 = address(0x02);
    address internal constant STRANGER = address(0x5757);
    address internal constant OWNER = address(0x0A);

    StrategyRegistryV3 internal registry;
    bytes32 internal id;

    function setUp() public {
        // A concrete start time: halmos' initial timestamp is symbolic, and no chain is near 2^40 seconds.
        vm.warp(1_800_000_000);
        registry = new StrategyRegistryV3(address(this), 2, 2, MIN_PAPER);
        registry.grantRole(registry.SCREENER_ROLE(), SCREENER);
        registry.grantRole(registry.GUARDIAN_ROLE(), GUARDIAN1);
        registry.grantRole(registry.GUARDIAN_ROLE(), GUARDIAN2);
        registry.grantRole(registry.MANAGER_ROLE(), MANAGER);
        registry.grantRole(registry.ORACLE_ROLE(), ORACLE1);
        registry.grantRole(registry.ORACLE_ROLE(), ORACLE2);
        IStrategyRegistryV3.RiskParams memory params = IStrategyRegistryV3.RiskParams({
            maxPositionSizePercent: 10,
            maxLeverage: 100,
            stopLossPercent: 500,
            slippageToleranceBps: 50,
            correlationThreshold: 70,
            velocityLimit: 1000,
            flashLoansEnabled: false
        });
        vm.prank(OWNER);
        id = registry.submit("grid", "a symbolic strategy", bytes32(uint256(1)), params);
    }

    function _status() internal view returns (uint8) {
        return uint8(registry.getStrategy(id).status);
    }

    /// @dev Drives the strategy along the table to `target` (0-4 directly; 5: paused in `pausedIn`; 6: failed
    ///      screening); in a review, one ballot may already be cast (`preVote`, direction `preApprove`).
    function _reach(uint8 target, uint8 pausedIn, bool preVote, bool preApprove) internal {
        vm.assume(target <= DEPRECATED && pausedIn <= LIVE);
        if (target == DEPRECATED) {
            vm.prank(SCREENER);
            registry.failScreening(id);
            return;
        }
        uint8 active = target == PAUSED ? pausedIn : target;
        if (active >= GUARDIAN_REVIEW) {
            vm.prank(SCREENER);
            registry.passScreening(id);
        }
        if (active >= PAPER_TRADING) {
            vm.prank(GUARDIAN1);
            registry.guardianVote(id, true);
            vm.prank(GUARDIAN2);
            registry.guardianVote(id, true);
        } else if (active == GUARDIAN_REVIEW && preVote) {
            vm.prank(GUARDIAN1);
            registry.guardianVote(id, preApprove);
        }
        if (active >= PENDING_ORACLE) {
            vm.warp(block.timestamp + MIN_PAPER);
            vm.prank(MANAGER);
            registry.completePaperTrading(id);
        }
        if (active >= LIVE) {
            vm.prank(ORACLE1);
            registry.oracleVote(id, true);
            vm.prank(ORACLE2);
            registry.oracleVote(id, true);
        } else if (active == PENDING_ORACLE && preVote) {
            vm.prank(ORACLE1);
            registry.oracleVote(id, preApprove);
        }
        if (target == PAUSED) {
            vm.prank(GUARDIAN1);
            registry.pause(id);
        }
        assert(_status() == target);
    }

    function _caller(uint8 who) internal pure returns (address) {
        if (who == 0) return SCREENER;
        if (who == 1) return GUARDIAN1;
        if (who == 2) return GUARDIAN2;
        if (who == 3) return MANAGER;
        if (who == 4) return ORACLE1;
        if (who == 5) return ORACLE2;
        return STRANGER;
    }

    function _call(uint8 fn, bool approve) internal pure returns (bytes memory, bytes4) {
        bytes4 selector;
        if (fn == 0) selector = IStrategyRegistryV3.passScreening.selector;
        else if (fn == 1) selector = IStrategyRegistryV3.failScreening.selector;
        else if (fn == 2) selector = IStrategyRegistryV3.guardianVote.selector;
        else if (fn == 3) selector = IStrategyRegistryV3.completePaperTrading.selector;
        else if (fn == 4) selector = IStrategyRegistryV3.oracleVote.selector;
        else if (fn == 5) selector = IStrategyRegistryV3.settleReview.selector;
        else if (fn == 6) selector = IStrategyRegistryV3.pause.selector;
        else if (fn == 7) selector = IStrategyRegistryV3.resume.selector;
        else selector = IStrategyRegistryV3.deprecate.selector;
        bool vote = selector == IStrategyRegistryV3.guardianVote.selector ||
            selector == IStrategyRegistryV3.oracleVote.selector;
        bytes memory data = vote ? abi.encodeWithSelector(selector, bytes32(0), approve) : abi.encodeWithSelector(selector, bytes32(0));
        return (data, selector);
    }

    /// @notice Any one lifecycle call from any state leaves the status or makes a move of the table, by its role.
    function check_onlyListedMoves(
        uint8 target,
        uint8 pausedIn,
        bool preVote,
        bool preApprove,
        uint8 fn,
        uint8 who,
        bool approve,
        uint256 wait
    ) public {
        vm.assume(fn <= 8 && who <= 6 && wait <= 400 days);
        _reach(target, pausedIn, preVote, preApprove);
        IStrategyRegistryV3.StrategyView memory before = registry.getStrategy(id);
        vm.warp(block.timestamp + wait);
        (bytes memory data, bytes4 selector) = _call(fn, approve);
        // The strategy id goes in the first argument.
        assembly {
            mstore(add(data, 36), sload(id.slot))
        }
        address caller = _caller(who);
        vm.prank(caller);
        (bool ok, ) = address(registry).call(data);
        IStrategyRegistryV3.StrategyView memory next = registry.getStrategy(id);
        uint8 from = uint8(before.status);
        uint8 to = uint8(next.status);

        assert(next.createdAt == before.createdAt);
        if (to == from) {
            assert(next.lastStatusChange == before.lastStatusChange);
            return;
        }
        assert(ok);
        assert(next.lastStatusChange == block.timestamp);
        // Deprecated is terminal.
        assert(from != DEPRECATED);
        bool guardian = registry.hasRole(registry.GUARDIAN_ROLE(), caller);
        bool oracle = registry.hasRole(registry.ORACLE_ROLE(), caller);
        if (to == PAUSED) {
            assert(selector == IStrategyRegistryV3.pause.selector && guardian);
            assert(uint8(next.pausedFrom) == from && from <= LIVE);
        } else if (from == PAUSED) {
            assert(selector == IStrategyRegistryV3.resume.selector && guardian);
            assert(to == uint8(before.pausedFrom));
        } else if (to == DEPRECATED) {
            assert(
                (selector == IStrategyRegistryV3.failScreening.selector && from == SHADOW && caller == SCREENER) ||
                    (selector == IStrategyRegistryV3.guardianVote.selector && from == GUARDIAN_REVIEW && guardian) ||
                    (selector == IStrategyRegistryV3.oracleVote.selector && from == PENDING_ORACLE && oracle) ||
                    (selector == IStrategyRegistryV3.settleReview.selector &&
                        (from == GUARDIAN_REVIEW || from == PENDING_ORACLE)) ||
                    (selector == IStrategyRegistryV3.deprecate.selector && guardian)
            );
        } else if (from == SHADOW) {
            assert(to == GUARDIAN_REVIEW && selector == IStrategyRegistryV3.passScreening.selector);
            assert(caller == SCREENER);
        } else if (from == GUARDIAN_REVIEW) {
            assert(to == PAPER_TRADING);
            assert(
                (selector == IStrategyRegistryV3.guardianVote.selector && guardian) ||
                    selector == IStrategyRegistryV3.settleReview.selector
            );
        } else if (from == PAPER_TRADING) {
            assert(to == PENDING_ORACLE && selector == IStrategyRegistryV3.completePaperTrading.selector);
            assert(caller == MANAGER);
            // Reached here without a pause: the whole minimum period since entering paper trading.
            assert(block.timestamp >= before.lastStatusChange + MIN_PAPER);
        } else if (from == PENDING_ORACLE) {
            assert(to == LIVE);
            assert(
                (selector == IStrategyRegistryV3.oracleVote.selector && oracle) ||
                    selector == IStrategyRegistryV3.settleReview.selector
            );
        } else {
            // Live moves only to paused or deprecated, both handled above.
            assert(false);
        }
    }
}
