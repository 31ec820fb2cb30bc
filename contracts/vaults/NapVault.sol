// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {INapVault} from "../interfaces/INapVault.sol";
import {IERC7540Operator, IERC7540Redeem, IERC7575, IERC7741, IERC7887Redeem} from "../interfaces/IERC7540.sol";
import {HotState, HotStateLib} from "./HotState.sol";
import {HolderLedger, Position, SupplyState} from "./HolderLedger.sol";
import {RedeemEscrow} from "./RedeemEscrow.sol";

/// @title NapVault
/// @notice A USDC vault on OpenZeppelin 5's ERC-4626, with fees, linearly unlocking profit, a deposit cap, pausing
///         of entries, recorded strategy allocations and, when built asynchronous, ERC-7540 redemption with
///         ERC-7887 cancelation.
///
/// Books: the vault counts the assets it holds for holders itself (accountedAssets: every deposit, exit, fill,
/// report and fee changes it) instead of reading its asset balance. totalAssets = accountedAssets - profit still
/// locked - the management fee since the last accrual. Assets sent to the vault outside deposits and reports
/// (donations) count for no holder: they cannot move the share price, and claimFees pays them to the fee recipient.
///
/// Inflation attack: donations do not move the price, so a first depositor cannot inflate it; the price moves only
/// with reported profit, which unlocks linearly to every holder pro rata, and fees. The vault also keeps
/// OpenZeppelin's virtual shares with a decimals offset of 6 (shares have 12 decimals for 6-decimal USDC): a deposit
/// of `a` assets receives floor(a * (S + 1e6) / (A + 1)) shares, where S is totalSupply and A totalAssets, so a
/// depositor loses to rounding less than the value of one share unit, (A + 1) / (S + 1e6) assets.
///
/// Profit: the harvester brings profit in with `report`. The whole gain is locked and counts in totalAssets only as
/// it unlocks, linearly until an end that is the amount-weighted average of the old end and a full
/// profitUnlockPeriod from now (so a report of nothing holds back nothing). So whoever holds while a gain unlocks
/// earns exactly its part of it, whenever it enters or leaves.
///
/// Performance fee and hurdle, per holder: each holder keeps hurdleRateBps a year of what it held, for the time it
/// held it, before any performance fee, and pays performanceFeeBps of its own gain beyond that. Each position
/// (HolderLedger) records its entry point: the share price and the hurdle accumulator when its shares entered. Its
/// gain is its shares times the rise of the share price since then (the profit that unlocked to it, net of the
/// management fee it paid); its hurdle price is the entry price grown by hurdleRateBps a year, simple interest.
/// What it owes is performanceFeeBps of shares * (price - hurdle price), in shares, rounded down. It is settled
/// when the position shrinks (redeem, withdraw, a fill of its request) and by anyone with `settle`: the shares owed
/// are burnt, the assets they are worth (rounded down) leave the books for the fee recipient, and the position
/// enters anew at the price of that moment. Nothing is settled while the holder is below its hurdle, so the hurdle
/// it earned carries on. Deposits and mints join new shares to the position at the price of the moment,
/// transfers and requests move shares with their entry point, so no holder's hurdle or gain depends on anyone
/// else's entries or exits: a deposit just before a report earns no hurdle for the time before it, and an exit
/// takes its hurdle away with it. Settling later never raises a holder's fee: it only counts more hurdle. Donations
/// move neither the price nor any hurdle.
///
/// Management fee: managementFeeBps a year of the holders' assets second by second (profit counts as it unlocks),
/// brought to date ("accrued") on every deposit, mint, withdraw, redeem and fill before the price is computed, and
/// by accrueFees, claimFees, report and the fee setters. A holder therefore pays it for exactly the time it holds,
/// on the value it holds, however often anyone accrues. Accruals of deposits,
/// exits and fills round the fee down to a unit (the fraction stays with the holders); accrueFees and the other
/// explicit accruals carry the fraction to the next one, so that calling accrueFees every block never lowers what
/// the recipient earns.
///
/// Fees leave accountedAssets and stay in the vault until claimFees pays them to the fee recipient. What a holder
/// pays in fees is at most the management fee for the time held on the value held, plus performanceFeeBps of the
/// reported gains that unlocked to it while it held (docs/vaults.md, docs/invariants.md). balanceOf includes the
/// shares a holder's performance fee will take; maxRedeem and maxWithdraw leave them out. That fee grows while profit
/// unlocks, so a whole position leaves with redeemAll, which counts it in its own block.
///
/// Asynchronous redemption (ERC-7540, when `isERC7540()`): `requestRedeem` moves shares into the vault, by or for
/// the controller only (its own call or its operator's), and sets the controller's ready time to now +
/// fulfillmentDelay. The shares stay in totalSupply and keep bearing gains and the management fee until the fill, at
/// the price of that moment (convertToAssets, rounded down): the shares are then burnt and the assets moved to the
/// redeem escrow, fixed, less the performance fee the requested shares owe from the entry point they carried into the
/// request (kept per controller). FULFILLER_ROLE may fill from the ready time, anyone FULFILLMENT_GRACE_PERIOD later,
/// so an exit never depends on the role: a request is claimable by its ready time + the grace period, for its value at
/// request time less the management fee of that wait (under 0.1% within the hard bounds). The controller may cancel its
/// pending request at any time (ERC-7887, claimable at once) and take its shares back, with that entry point. Claims go
/// through `redeem` / `withdraw` with the controller as owner, by the controller or its operator; previewRedeem /
/// previewWithdraw revert.
///
/// Exit before governance acts: a request waits at most the governance timelock's delay less EXIT_MARGIN, read from
/// the timelock at each request (appliedFulfillmentDelay), so that a holder who asks to leave when a proposal is
/// queued is claimable before it can execute, whatever delay governance configured and however it changed the
/// timelock's delay since.
///
/// Operators (ERC-7540, on both kinds of vault): a controller's operator may request, cancel and claim for it, and on
/// a synchronous vault redeem and withdraw its shares, to any receiver, without an allowance: as an unlimited
/// allowance that also reaches requests. The controller sets one with setOperator, or by an EIP-712 signature that
/// anyone may submit (ERC-7741 authorizeOperator: EOA or EIP-1271 signer, an unordered nonce used once, a deadline;
/// the domain is the share token's name, version "1", this chain and this vault), so that one authorisation lets a
/// router act for a wallet that holds no ETH on either kind of vault.
///
/// Pausing stops entries (deposit, mint, report): maxDeposit and maxMint return 0. Exits never pause.
///
/// Invariants: totalSupply equals the sum of balances (the vault's own balance holds pending and canceled request
/// shares); the vault's asset balance >= accountedAssets; the escrow holds at least totalClaimableAssets; every
/// conversion rounds in favour of the vault. docs/invariants.md lists them all with the tests that prove them.
contract NapVault is
    ERC4626,
    AccessControl,
    EIP712,
    INapVault,
    IERC7540Operator,
    IERC7540Redeem,
    IERC7575,
    IERC7887Redeem,
    IERC7741
{
    using Math for uint256;
    using SafeCast for uint256;

    /// @notice May record strategy allocations.
    bytes32 public constant MANAGER_ROLE = keccak256("MANAGER_ROLE");
    /// @notice May bring profit in with `report`.
    bytes32 public constant HARVESTER_ROLE = keccak256("HARVESTER_ROLE");
    /// @notice May pause and unpause entries.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");
    /// @notice May fill ERC-7540 redeem requests as soon as they are ready.
    bytes32 public constant FULFILLER_ROLE = keccak256("FULFILLER_ROLE");

    /// @notice Hard upper bound of the annual management fee: 5%.
    uint256 public constant MAX_MANAGEMENT_FEE_BPS = 500;
    /// @notice Hard upper bound of the performance fee: 30% of profit above the hurdle.
    uint256 public constant MAX_PERFORMANCE_FEE_BPS = 3_000;
    /// @notice Hard upper bound of the annual hurdle rate: 20%.
    uint256 public constant MAX_HURDLE_RATE_BPS = 2_000;
    /// @notice Shortest profit unlock period.
    uint256 public constant MIN_PROFIT_UNLOCK_PERIOD = 1 hours;
    /// @notice Longest profit unlock period.
    uint256 public constant MAX_PROFIT_UNLOCK_PERIOD = 30 days;
    /// @notice Longest fulfilment delay of an asynchronous vault. With the grace period it bounds every exit to
    ///         8 days and 1 hour, and keeps the management fee of the wait under 0.1% at the highest fee (5% a year).
    uint256 public constant MAX_FULFILLMENT_DELAY = 7 days;
    /// @notice Time after a request's ready time from which anyone, not only FULFILLER_ROLE, may fill it.
    uint256 public constant FULFILLMENT_GRACE_PERIOD = 1 hours;
    /// @notice Time a holder needs beyond its request's wait to leave before a queued proposal executes: to see it
    ///         queued and ask, and the grace period for anyone to fill. A request waits at most the governance
    ///         timelock's delay less this.
    uint256 public constant EXIT_MARGIN = 1 days;
    /// @notice Most allocations one vault records.
    uint256 public constant MAX_ALLOCATIONS = 20;

    bytes4 private constant _IERC7575_ID = 0x2f0a18c5;
    /// @dev EIP-712 type hash of an ERC-7741 operator authorisation (the typed data of docs/vaults.md).
    bytes32 private constant _AUTHORIZE_OPERATOR_TYPEHASH = keccak256(
        "AuthorizeOperator(address controller,address operator,bool approved,bytes32 nonce,uint256 deadline)"
    );
    uint256 private constant _BPS = 10_000;
    uint256 private constant _YEAR = 365 days;
    /// @dev Basis points times seconds in a year: the denominator of the management fee.
    uint256 private constant _FEE_DENOMINATOR = _BPS * _YEAR;
    uint8 private constant _DECIMALS_OFFSET = 6;
    uint256 private constant _VIRTUAL_SHARES = 10 ** _DECIMALS_OFFSET;
    /// @dev Gas for the timelock's getMinDelay (one storage read in OpenZeppelin's TimelockController), so that an
    ///      admin contract of another kind cannot make requests run out of gas.
    uint256 private constant _DELAY_QUERY_GAS = 10_000;

    /// @dev Fee settings read only by fee claims and fee changes (the rates a settlement reads live in _supply).
    struct FeeConfig {
        address recipient;
    }

    /// @dev Settings read only by reports and requests, and the carried fraction of the management fee.
    struct Timing {
        // At most MAX_PROFIT_UNLOCK_PERIOD (30 days < 2**22).
        uint24 profitUnlockPeriod;
        // At most MAX_FULFILLMENT_DELAY (7 days < 2**20).
        uint24 fulfillmentDelay;
        // Fraction of an asset unit of management fee, times _FEE_DENOMINATOR (< 2**39), carried by accrueFees.
        uint40 feeRemainder;
    }

    /// @dev One controller's aggregated request (ERC-7540 request id 0). Its pending and canceled shares are one
    ///      position in the vault's hands: they keep the entry point (HolderLedger) they came with, so that their
    ///      performance fee is settled at the fill from it, and a cancelation returns them with it.
    struct RedeemState {
        uint128 pendingShares;
        uint64 readyAt;
        uint48 entryMark;
        uint128 claimableShares;
        uint128 claimableAssets;
        uint128 canceledShares;
        uint128 entryPrice;
    }

    /// @dev One holder's position, behind a struct so that an entry or exit reaches its slot through one pointer.
    struct Holding {
        Position position;
    }

    HotState private _hot;
    FeeConfig private _feeConfig;
    Timing private _timing;
    uint256 private _totalClaimableAssets;
    Allocation[] private _allocations;
    mapping(address controller => RedeemState) private _redeems;
    mapping(address controller => mapping(address operator => bool)) private _operators;
    /// @dev ERC-7741 nonces used or invalidated, per controller.
    mapping(address controller => mapping(bytes32 nonce => bool used)) private _authorizations;
    /// @dev Share balances with each holder's entry point (replacing OpenZeppelin ERC20's, through its _update,
    ///      balanceOf and totalSupply extension points), and the supply with the fee rates a settlement reads.
    mapping(address holder => Holding) private _holdings;
    SupplyState private _supply;

    RiskLevel private immutable _riskLevel;
    bool private immutable _async;
    uint256 private immutable _createdAt;
    address private immutable _escrow;
    /// @dev Asset units of one whole token: the unit of the stored deposit cap.
    uint256 private immutable _capUnit;
    /// @dev The admin at deployment when it is a contract (the governance timelock), whose delay bounds a request's
    ///      wait; zero otherwise.
    address private immutable _timelock;

    /// @notice Deploys a vault with fixed risk level and redemption mode, and grants the roles (none to the deployer).
    /// @param params Economic parameters (bounds checked).
    /// @param roles Role holders; `roles.admin` must be non-zero, other zero entries are left ungranted.
    /// @param initialAllocations Recorded allocation targets.
    constructor(
        VaultParams memory params,
        VaultRoles memory roles,
        Allocation[] memory initialAllocations
    ) ERC20(params.name, params.symbol) ERC4626(params.asset) EIP712(params.name, "1") {
        if (roles.admin == address(0)) revert ZeroAddress();
        _riskLevel = params.riskLevel;
        _async = params.asyncRedeem;
        _createdAt = block.timestamp;
        _escrow = params.asyncRedeem ? address(new RedeemEscrow(params.asset)) : address(0);
        _capUnit = 10 ** (decimals() - _DECIMALS_OFFSET);
        _timelock = roles.admin.code.length > 0 ? roles.admin : address(0);

        _grantRole(DEFAULT_ADMIN_ROLE, roles.admin);
        _grantIfSet(MANAGER_ROLE, roles.manager);
        _grantIfSet(HARVESTER_ROLE, roles.harvester);
        _grantIfSet(GUARDIAN_ROLE, roles.guardian);
        _grantIfSet(FULFILLER_ROLE, roles.fulfiller);

        _hot = HotState.wrap(0).withAccounted(block.timestamp, 0);
        _setFeeRecipient(params.feeRecipient);
        _setFees(params.managementFeeBps, params.performanceFeeBps, params.hurdleRateBps);
        _setDepositCap(params.depositCap);
        _setProfitUnlockPeriod(params.profitUnlockPeriod);
        _setFulfillmentDelay(params.fulfillmentDelay);
        _setAllocations(initialAllocations);
    }

    // ---------------------------------------------------------------- ERC-20

    /// @notice Shares in existence: the sum of every balance, the vault's own (requests) included.
    /// @return Total share supply.
    function totalSupply() public view override(ERC20, IERC20) returns (uint256) {
        return _supply.totalSupply();
    }

    /// @notice Shares of `account`, including those its performance fee owed will take (see maxRedeem and
    ///         performanceFeeOwed).
    /// @param account Holder.
    /// @return Share balance.
    function balanceOf(address account) public view override(ERC20, IERC20) returns (uint256) {
        return _holdings[account].position.shares();
    }

    // ---------------------------------------------------------------- ERC-4626

    /// @notice Assets that belong to holders: the vault's books (accountedAssets) minus profit still locked and the
    ///         management fee since the last accrual, rounded down. Assets of filled requests are in the escrow;
    ///         assets sent to the vault outside deposits and reports are not counted.
    /// @return assets Assets of the holders, rounded down.
    function totalAssets() public view override(ERC4626, IERC4626) returns (uint256 assets) {
        (, assets, , ) = _accrued(_hot, 0);
    }

    /// @notice Most assets `receiver` may deposit: 0 while paused, otherwise depositCap - totalAssets (0 when the
    ///         cap is reached), and never more than keeps the books within 2**64 - 1 units (the only limit without
    ///         a cap).
    /// @return Assets that may be deposited now.
    function maxDeposit(address) public view override(ERC4626, IERC4626) returns (uint256) {
        (HotState s, uint256 assets, , ) = _accrued(_hot, 0);
        return s.room(assets, _capUnit);
    }

    /// @notice Most shares `receiver` may mint: the shares maxDeposit buys, rounded down (as convertToShares), so
    ///         minting them never needs more than maxDeposit; 0 while paused.
    /// @return Shares that may be minted now.
    function maxMint(address) public view override(ERC4626, IERC4626) returns (uint256) {
        (HotState s, uint256 assets, , ) = _accrued(_hot, 0);
        return s.room(assets, _capUnit).mulDiv(totalSupply() + _VIRTUAL_SHARES, assets + 1);
    }

    /// @notice Synchronous vault: the shares of `owner` less those its performance fee owed takes (unchanged by
    ///         pausing). Asynchronous vault: the claimable shares of `owner` as controller.
    /// @param owner Share owner (synchronous) or controller (asynchronous).
    /// @return Shares that may be redeemed now.
    function maxRedeem(address owner) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) return _redeems[owner].claimableShares;
        (, , , Position held, ) = _settledForExit(owner, _supply);
        return held.shares();
    }

    /// @notice Synchronous vault: what maxRedeem(owner) pays once its performance fee owed is settled, rounded down
    ///         (at least previewRedeem(maxRedeem(owner)); unchanged by pausing). Asynchronous vault: the claimable
    ///         assets of `owner` as controller.
    /// @param owner Share owner (synchronous) or controller (asynchronous).
    /// @return Assets that may be withdrawn now.
    function maxWithdraw(address owner) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) return _redeems[owner].claimableAssets;
        (, uint256 total, uint256 supplyWithVirtual, Position held, ) = _settledForExit(owner, _supply);
        return (held.shares() * (total + 1)) / supplyWithVirtual;
    }

    /// @notice Synchronous vault: shares burnt to withdraw `assets`, rounded up. Reverts AsyncPreviewNotSupported
    ///         on an asynchronous vault, as ERC-7540 requires.
    /// @param assets Assets to withdraw.
    /// @return Shares that would be burnt.
    function previewWithdraw(uint256 assets) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) revert AsyncPreviewNotSupported();
        return super.previewWithdraw(assets);
    }

    /// @notice Synchronous vault: assets paid for `shares`, rounded down. Reverts AsyncPreviewNotSupported on an
    ///         asynchronous vault, as ERC-7540 requires.
    /// @param shares Shares to redeem.
    /// @return Assets that would be paid.
    function previewRedeem(uint256 shares) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) revert AsyncPreviewNotSupported();
        return super.previewRedeem(shares);
    }

    /// @notice ERC-4626 deposit, shares rounded down. The management fee is brought to date first, so the
    ///         depositor pays none of it for the time before it entered. Reverts VaultIsPaused while paused.
    /// @param assets Assets to deposit.
    /// @param receiver Receives the shares.
    /// @return shares Shares minted.
    function deposit(uint256 assets, address receiver) public override(ERC4626, IERC4626) returns (uint256 shares) {
        (HotState s, uint256 total, , ) = _accrued(_hot, 0);
        uint256 room = s.room(total, _capUnit);
        if (assets > room) revert ERC4626ExceededMaxDeposit(receiver, assets, room);
        // The room is 0 while paused, so this only catches zero-amount entries.
        if (s.paused()) revert VaultIsPaused();
        SupplyState supply = _supply;
        uint256 supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
        shares = (assets * supplyWithVirtual) / (total + 1);
        _hot = s.withDeposit(assets);
        _enter(receiver, assets, shares, supply, total, supplyWithVirtual);
    }

    /// @notice ERC-4626 mint, assets charged rounded up. The management fee is brought to date first. Reverts
    ///         VaultIsPaused while paused.
    /// @param shares Shares to mint.
    /// @param receiver Receives the shares.
    /// @return assets Assets charged.
    function mint(uint256 shares, address receiver) public override(ERC4626, IERC4626) returns (uint256 assets) {
        (HotState s, uint256 total, , ) = _accrued(_hot, 0);
        SupplyState supply = _supply;
        uint256 supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
        assets = (shares * (total + 1) + supplyWithVirtual - 1) / supplyWithVirtual;
        uint256 room = s.room(total, _capUnit);
        // assets (rounded up) <= room exactly when shares <= maxMint (room's shares rounded down).
        if (assets > room) revert ERC4626ExceededMaxMint(receiver, shares, room.mulDiv(supplyWithVirtual, total + 1));
        if (s.paused()) revert VaultIsPaused();
        _hot = s.withDeposit(assets);
        _enter(receiver, assets, shares, supply, total, supplyWithVirtual);
    }

    /// @notice Synchronous vault: ERC-4626 withdraw, shares burnt rounded up, after bringing the management fee to
    ///         date, by the owner, its operator (ERC-7540) or a spender of its allowance. Asynchronous vault:
    ///         ERC-7540 claim of `assets` from the filled requests of `controller`, by it or its operator; shares
    ///         counted against the claim are rounded up (all of them when the whole claim is taken).
    /// @param assets Assets to pay out.
    /// @param receiver Receives the assets.
    /// @param controller Share owner (synchronous) or controller of the filled requests (asynchronous).
    /// @return shares Shares burnt (synchronous) or counted against the claim (asynchronous).
    function withdraw(
        uint256 assets,
        address receiver,
        address controller
    ) public override(ERC4626, IERC4626) returns (uint256 shares) {
        if (!_async) {
            // At the price after the owner's settlement, never below the one the preview used.
            SupplyState supply = _supply;
            (HotState s, uint256 total, , ) = _accrued(_hot, 0);
            uint256 supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
            Holding storage holding = _holdings[controller];
            (Position held, uint256 fee, uint256 feeAssets) = holding.position.settledNow(
                supply,
                total,
                supplyWithVirtual
            );
            s = s.withExit(feeAssets);
            // feeAssets <= total and fee < supplyWithVirtual (settledNow).
            unchecked {
                total -= feeAssets;
                supplyWithVirtual -= fee;
            }
            uint256 maxAssets = (held.shares() * (total + 1)) / supplyWithVirtual;
            if (assets > maxAssets) revert ERC4626ExceededMaxWithdraw(controller, assets, maxAssets);
            shares = (assets * supplyWithVirtual + total) / (total + 1);
            _hot = s.withExit(assets);
            _exit(receiver, controller, assets, shares, holding, held, fee);
            return shares;
        }
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 claimableAssets = request.claimableAssets;
        if (assets > claimableAssets) revert ERC4626ExceededMaxWithdraw(controller, assets, claimableAssets);
        uint256 claimableShares = request.claimableShares;
        shares =
            assets == claimableAssets
                ? claimableShares
                : assets.mulDiv(claimableShares, claimableAssets, Math.Rounding.Ceil);
        _claim(request, receiver, controller, assets, shares);
    }

    /// @notice Synchronous vault: ERC-4626 redeem, assets paid rounded down, after bringing the management fee to
    ///         date, by the owner, its operator (ERC-7540) or a spender of its allowance. Asynchronous vault:
    ///         ERC-7540 claim of `shares` from the filled requests of `controller`, by it or its operator, at their
    ///         average fill price, rounded down (all the assets when the whole claim is taken).
    /// @param shares Shares to redeem (synchronous) or to count against the claim (asynchronous).
    /// @param receiver Receives the assets.
    /// @param controller Share owner (synchronous) or controller of the filled requests (asynchronous).
    /// @return assets Assets paid out.
    function redeem(
        uint256 shares,
        address receiver,
        address controller
    ) public override(ERC4626, IERC4626) returns (uint256 assets) {
        if (!_async) {
            (, assets) = _redeemHeld(shares, false, receiver, controller);
            return assets;
        }
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 claimableShares = request.claimableShares;
        if (shares > claimableShares) revert ERC4626ExceededMaxRedeem(controller, shares, claimableShares);
        uint256 claimableAssets = request.claimableAssets;
        assets =
            shares == claimableShares
                ? claimableAssets
                : shares.mulDiv(claimableAssets, claimableShares, Math.Rounding.Floor);
        _claim(request, receiver, controller, assets, shares);
    }

    /// @inheritdoc INapVault
    /// @dev Open while paused, as every exit.
    function redeemAll(address receiver, address owner) external returns (uint256 shares, uint256 assets) {
        if (!_async) return _redeemHeld(0, true, receiver, owner);
        _checkControllerOrOperator(owner);
        RedeemState storage request = _redeems[owner];
        (shares, assets) = (request.claimableShares, request.claimableAssets);
        _claim(request, receiver, owner, assets, shares);
    }

    /// @dev The synchronous redeem of `shares`, or with `whole` of every share left once the owner's performance
    ///      fee is settled (its maxRedeem of this block), at the price after that settlement, never below the one
    ///      the preview used.
    function _redeemHeld(
        uint256 shares,
        bool whole,
        address receiver,
        address controller
    ) private returns (uint256, uint256 assets) {
        SupplyState supply = _supply;
        Holding storage holding = _holdings[controller];
        Position held;
        uint256 fee;
        {
            (HotState s, uint256 total, , ) = _accrued(_hot, 0);
            uint256 supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
            uint256 feeAssets;
            (held, fee, feeAssets) = holding.position.settledNow(supply, total, supplyWithVirtual);
            if (whole) shares = held.shares();
            else if (shares > held.shares()) revert ERC4626ExceededMaxRedeem(controller, shares, held.shares());
            // feeAssets <= total and fee < supplyWithVirtual (settledNow); shares < 2**96, total < 2**64.
            unchecked {
                assets = (shares * (total - feeAssets + 1)) / (supplyWithVirtual - fee);
            }
            _hot = s.withExit(assets + feeAssets);
        }
        // _exit, inlined: the full exit is the tightest operation against the gas bound.
        if (msg.sender != controller && !_operators[controller][msg.sender]) {
            _spendAllowance(controller, msg.sender, shares);
        }
        holding.position = held.without(shares);
        _supply = supply.withBurnt(shares + fee);
        emit Transfer(controller, address(0), shares + fee);
        SafeERC20.safeTransfer(IERC20(asset()), receiver, assets);
        emit Withdraw(msg.sender, receiver, controller, assets, shares);
        return (shares, assets);
    }

    function _decimalsOffset() internal pure override returns (uint8) {
        return _DECIMALS_OFFSET;
    }

    // ---------------------------------------------------------------- ERC-7540 and ERC-7887

    /// @inheritdoc IERC7540Redeem
    /// @dev The caller must be the controller or its operator, so that no one else can delay a controller's
    ///      request, and must be `owner`, its operator, or hold an ERC-20 allowance of `owner` for `shares`
    ///      (spent). The controller's ready time becomes now + appliedFulfillmentDelay for its whole pending amount.
    ///      Open while paused.
    function requestRedeem(uint256 shares, address controller, address owner) external returns (uint256) {
        if (!_async) revert AsyncRedeemNotSupported();
        if (shares == 0) revert ZeroShares();
        if (controller == address(0)) revert ZeroAddress();
        _checkControllerOrOperator(controller);
        if (owner != msg.sender && !_operators[owner][msg.sender]) _spendAllowance(owner, msg.sender, shares);
        RedeemState storage request = _redeems[controller];
        // The shares join the controller's request position with the entry point they had.
        Position held = _holdings[owner].position;
        uint256 balance = held.shares();
        if (balance < shares) revert ERC20InsufficientBalance(owner, balance, shares);
        _holdings[owner].position = held.without(shares);
        _holdings[address(this)].position = _holdings[address(this)].position.plus(shares);
        emit Transfer(owner, address(this), shares);
        Position requested = HolderLedger
            .position(request.pendingShares + request.canceledShares, request.entryMark, request.entryPrice)
            .joined(shares, held.entryPrice(), held.entryMark(), _supply.hurdleMark());
        request.entryMark = uint48(requested.entryMark());
        request.entryPrice = uint128(requested.entryPrice());
        request.pendingShares += shares.toUint128();
        request.readyAt = uint64(block.timestamp + _appliedFulfillmentDelay());
        emit RedeemRequest(controller, owner, 0, msg.sender, shares);
        return 0;
    }

    /// @inheritdoc INapVault
    function fulfillRedeem(address controller) external returns (uint256 assets) {
        RedeemState storage request = _redeems[controller];
        uint256 shares = request.pendingShares;
        if (shares == 0) revert NothingToFulfill(controller);
        uint256 readyAt = request.readyAt;
        if (!hasRole(FULFILLER_ROLE, msg.sender)) readyAt += FULFILLMENT_GRACE_PERIOD;
        if (block.timestamp < readyAt) revert FulfillmentNotReady(controller, readyAt, block.timestamp);
        (HotState s, uint256 total, , ) = _accrued(_hot, 0);
        SupplyState supply = _supply;
        uint256 supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
        // The requested shares' performance fee, from the entry point they carried into the request.
        (, uint256 fee, uint256 feeAssets) = _settled(
            HolderLedger.position(shares, request.entryMark, request.entryPrice),
            total,
            supplyWithVirtual,
            supply
        );
        assets = (shares - fee).mulDiv(total - feeAssets + 1, supplyWithVirtual - fee);
        _hot = s.withExit(assets + feeAssets);
        request.pendingShares = 0;
        request.readyAt = 0;
        request.claimableShares += uint128(shares);
        request.claimableAssets += assets.toUint128();
        _totalClaimableAssets += assets;
        _holdings[address(this)].position = _holdings[address(this)].position.without(shares);
        _supply = supply.withBurnt(shares);
        emit Transfer(address(this), address(0), shares);
        if (fee > 0) emit PerformanceFeeCharged(controller, fee, feeAssets);
        SafeERC20.safeTransfer(IERC20(asset()), _escrow, assets);
        emit RedeemFulfilled(controller, msg.sender, shares, assets);
    }

    /// @inheritdoc IERC7887Redeem
    /// @dev Open while paused. Nothing of the request is kept: a later request starts a new delay.
    function cancelRedeemRequest(uint256, address controller) external {
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 shares = request.pendingShares;
        if (shares == 0) revert NothingToCancel(controller);
        request.pendingShares = 0;
        request.readyAt = 0;
        request.canceledShares += uint128(shares);
        emit CancelRedeemRequest(controller, 0, msg.sender);
    }

    /// @inheritdoc IERC7887Redeem
    function claimCancelRedeemRequest(uint256, address receiver, address controller) external {
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 shares = request.canceledShares;
        if (shares == 0) revert NothingToClaim(controller);
        request.canceledShares = 0;
        if (receiver == address(0)) revert ERC20InvalidReceiver(address(0));
        // The shares go back with the entry point of the request position (pending shares, if any, keep it).
        _holdings[address(this)].position = _holdings[address(this)].position.without(shares);
        _holdings[receiver].position = _holdings[receiver].position.joined(
            shares,
            request.entryPrice,
            request.entryMark,
            _supply.hurdleMark()
        );
        emit Transfer(address(this), receiver, shares);
        emit CancelRedeemClaim(controller, receiver, 0, msg.sender, shares);
    }

    /// @inheritdoc IERC7540Redeem
    function pendingRedeemRequest(uint256, address controller) external view returns (uint256) {
        return _redeems[controller].pendingShares;
    }

    /// @inheritdoc IERC7540Redeem
    function claimableRedeemRequest(uint256, address controller) external view returns (uint256) {
        return _redeems[controller].claimableShares;
    }

    /// @inheritdoc INapVault
    function pendingRedeemReadyAt(address controller) external view returns (uint256) {
        return _redeems[controller].readyAt;
    }

    /// @inheritdoc IERC7887Redeem
    function pendingCancelRedeemRequest(uint256, address) external pure returns (bool) {
        return false;
    }

    /// @inheritdoc IERC7887Redeem
    function claimableCancelRedeemRequest(uint256, address controller) external view returns (uint256) {
        return _redeems[controller].canceledShares;
    }

    /// @inheritdoc IERC7540Operator
    /// @dev On a synchronous vault the operator may also redeem and withdraw the caller's shares to any receiver.
    function setOperator(address operator, bool approved) external returns (bool) {
        _operators[msg.sender][operator] = approved;
        emit OperatorSet(msg.sender, operator, approved);
        return true;
    }

    /// @inheritdoc IERC7741
    /// @dev The nonce is used before the signature is checked (an EIP-1271 wallet is only read, by staticcall).
    function authorizeOperator(
        address controller,
        address operator,
        bool approved,
        bytes32 nonce,
        uint256 deadline,
        bytes calldata signature
    ) external returns (bool) {
        if (block.timestamp > deadline) revert AuthorizationExpired(deadline);
        if (_authorizations[controller][nonce]) revert AuthorizationUsed(controller, nonce);
        _authorizations[controller][nonce] = true;
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(_AUTHORIZE_OPERATOR_TYPEHASH, controller, operator, approved, nonce, deadline))
        );
        // No signature recovers to the zero address, so a zero controller is refused here too.
        if (!SignatureChecker.isValidSignatureNowCalldata(controller, digest, signature)) {
            revert InvalidAuthorization(controller);
        }
        _operators[controller][operator] = approved;
        emit OperatorSet(controller, operator, approved);
        return true;
    }

    /// @inheritdoc IERC7741
    function invalidateNonce(bytes32 nonce) external {
        _authorizations[msg.sender][nonce] = true;
    }

    /// @inheritdoc IERC7741
    function authorizations(address controller, bytes32 nonce) external view returns (bool) {
        return _authorizations[controller][nonce];
    }

    /// @inheritdoc IERC7741
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @inheritdoc IERC7540Operator
    function isOperator(address controller, address operator) external view returns (bool) {
        return _operators[controller][operator];
    }

    /// @inheritdoc IERC7575
    function share() external view returns (address) {
        return address(this);
    }

    /// @notice ERC-165: AccessControl, ERC-7575, ERC-7741, and for asynchronous vaults ERC-7540 operator and redeem
    ///         and ERC-7887 redeem cancelation.
    /// @param interfaceId ERC-165 interface id.
    /// @return True when supported.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        if (interfaceId == _IERC7575_ID || interfaceId == type(IERC7741).interfaceId) return true;
        if (
            _async &&
            (interfaceId == type(IERC7540Operator).interfaceId ||
                interfaceId == type(IERC7540Redeem).interfaceId ||
                interfaceId == type(IERC7887Redeem).interfaceId)
        ) return true;
        return super.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- roles' actions and fees

    /// @inheritdoc INapVault
    function pause() external onlyRole(GUARDIAN_ROLE) {
        HotState s = _hot;
        if (s.paused()) revert VaultIsPaused();
        _hot = s.withPaused(true);
        emit Paused(msg.sender);
    }

    /// @inheritdoc INapVault
    function unpause() external onlyRole(GUARDIAN_ROLE) {
        HotState s = _hot;
        if (!s.paused()) revert VaultIsNotPaused();
        _hot = s.withPaused(false);
        emit Unpaused(msg.sender);
    }

    /// @inheritdoc INapVault
    function report(uint256 gain) external onlyRole(HARVESTER_ROLE) {
        if (_hot.paused()) revert VaultIsPaused();
        (HotState s, , uint256 managementFee) = _accrueCarrying();
        // The whole gain joins the holders' books, locked: each holder's performance fee is settled on what
        // unlocks to it, beyond its own hurdle.
        uint256 accounted = s.accountedAssets() + gain;
        if (accounted > HotStateLib.MAX_AMOUNT) revert ReportTooLarge(accounted, HotStateLib.MAX_AMOUNT);
        uint256 stillLocked = s.stillLocked();
        uint256 locked = stillLocked + gain;
        uint256 duration = _unlockDuration(s, stillLocked, gain);
        _hot = s.withAccounted(block.timestamp, accounted).withUnlock(locked, duration);
        SafeERC20.safeTransferFrom(IERC20(asset()), msg.sender, address(this), gain);
        emit FeesAccrued(_feeConfig.recipient, managementFee, 0);
        emit Reported(msg.sender, gain, 0, locked, block.timestamp + duration);
    }

    /// @inheritdoc INapVault
    function settle(address holder) external returns (uint256 fee) {
        // The vault's own shares are requests: their fee is settled at the fill, per controller.
        if (holder == address(this)) return 0;
        (HotState s, uint256 total, , ) = _accrued(_hot, 0);
        SupplyState supply = _supply;
        uint256 feeAssets;
        Position held;
        (held, fee, feeAssets) = _settled(
            _holdings[holder].position,
            total,
            supply.totalSupply() + _VIRTUAL_SHARES,
            supply
        );
        // A position that owes nothing is left as it is, so that the hurdle it earned carries on.
        if (fee > 0) {
            _hot = s.withExit(feeAssets);
            _holdings[holder].position = held;
            _supply = supply.withBurnt(fee);
            emit Transfer(holder, address(0), fee);
            emit PerformanceFeeCharged(holder, fee, feeAssets);
        }
    }

    /// @inheritdoc INapVault
    function accrueFees() external {
        _accrueFeesAndEmit();
    }

    /// @inheritdoc INapVault
    function claimFees() external returns (uint256) {
        _accrueFeesAndEmit();
        return _payFees(true);
    }

    /// @inheritdoc INapVault
    function setAllocations(Allocation[] calldata newAllocations) external onlyRole(MANAGER_ROLE) {
        _setAllocations(newAllocations);
    }

    /// @inheritdoc INapVault
    function setFeeRecipient(address recipient) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _accrueFeesAndEmit();
        // Best effort: an old recipient the asset refuses to pay (a blacklisted address) must not block the change.
        _payFees(false);
        _setFeeRecipient(recipient);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc INapVault
    function riskLevel() external view returns (RiskLevel) {
        return _riskLevel;
    }

    /// @inheritdoc INapVault
    function isERC7540() external view returns (bool) {
        return _async;
    }

    /// @inheritdoc INapVault
    function fulfillmentDelay() external view returns (uint256) {
        return _timing.fulfillmentDelay;
    }

    /// @inheritdoc INapVault
    function appliedFulfillmentDelay() external view returns (uint256) {
        return _appliedFulfillmentDelay();
    }

    /// @inheritdoc INapVault
    function governanceTimelock() external view returns (address) {
        return _timelock;
    }

    /// @inheritdoc INapVault
    function createdAt() external view returns (uint256) {
        return _createdAt;
    }

    /// @inheritdoc INapVault
    function paused() external view returns (bool) {
        return _hot.paused();
    }

    /// @inheritdoc INapVault
    function depositCap() external view returns (uint256) {
        uint256 cap = _hot.depositCap();
        // A sentinel set only by the constructor or the admin; see docs/slither-triage.md.
        // slither-disable-next-line incorrect-equality
        return cap == HotStateLib.NO_CAP ? type(uint256).max : cap * _capUnit;
    }

    /// @inheritdoc INapVault
    function profitUnlockPeriod() external view returns (uint256) {
        return _timing.profitUnlockPeriod;
    }

    /// @inheritdoc INapVault
    function managementFeeBps() external view returns (uint256) {
        return _hot.managementFeeBps();
    }

    /// @inheritdoc INapVault
    function performanceFeeBps() external view returns (uint256) {
        return _supply.performanceBps();
    }

    /// @inheritdoc INapVault
    function hurdleRateBps() external view returns (uint256) {
        return _supply.hurdleBps();
    }

    /// @inheritdoc INapVault
    function feeRecipient() external view returns (address) {
        return _feeConfig.recipient;
    }

    /// @inheritdoc INapVault
    function lastFeeAccrual() external view returns (uint256) {
        return _hot.lastAccrual();
    }

    /// @inheritdoc INapVault
    function accountedAssets() external view returns (uint256) {
        return _hot.accountedAssets();
    }

    /// @inheritdoc INapVault
    function feesOwed() external view returns (uint256) {
        (HotState s, , , ) = _accrued(_hot, _timing.feeRemainder);
        return _feeBalance(s);
    }

    /// @inheritdoc INapVault
    function performanceFeeOwed(address holder) external view returns (uint256 shares, uint256 assets) {
        if (holder == address(this)) return (0, 0);
        (, uint256 total, , ) = _accrued(_hot, 0);
        SupplyState supply = _supply;
        (, shares, assets) = _settled(
            _holdings[holder].position,
            total,
            supply.totalSupply() + _VIRTUAL_SHARES,
            supply
        );
    }

    /// @inheritdoc INapVault
    function positionOf(address holder) external view returns (uint256 shares, uint256 entryPrice, uint256 entryMark) {
        Position held = _holdings[holder].position;
        return (held.shares(), held.entryPrice(), held.entryMark());
    }

    /// @inheritdoc INapVault
    function hurdleMark() external view returns (uint256) {
        return _supply.hurdleMark();
    }

    /// @inheritdoc INapVault
    function profitUnlock()
        external
        view
        returns (uint256 lockedAtReport, uint256 lastReport, uint256 unlockEnd, uint256 stillLocked)
    {
        HotState s = _hot;
        return (s.lockedProfit(), s.lastReport(), s.unlockEnd(), s.stillLocked());
    }

    /// @inheritdoc INapVault
    function allocations() external view returns (Allocation[] memory) {
        return _allocations;
    }

    /// @inheritdoc INapVault
    function redeemEscrow() external view returns (address) {
        return _escrow;
    }

    /// @inheritdoc INapVault
    function totalClaimableAssets() external view returns (uint256) {
        return _totalClaimableAssets;
    }

    // ---------------------------------------------------------------- internal

    /// @dev `s` with the management fee brought to date (HotStateLib.accrue), nothing written; `carried` is the
    ///      fraction of a unit left by the previous explicit accrual (0 on deposits, exits and fills).
    function _accrued(
        HotState s,
        uint256 carried
    ) private view returns (HotState next, uint256 assets, uint256 fee, uint256 remainder) {
        return s.accrue(carried, _FEE_DENOMINATOR);
    }

    /// @dev Brings the management fee to date carrying the fraction of a unit to the next accrual (written).
    function _accrueCarrying() private returns (HotState s, uint256 assets, uint256 fee) {
        uint256 remainder;
        (s, assets, fee, remainder) = _accrued(_hot, _timing.feeRemainder);
        _hot = s;
        _timing.feeRemainder = uint40(remainder);
    }

    /// @dev The fulfilment delay, at most the governance timelock's delay less EXIT_MARGIN (0 when the delay is
    ///      shorter). Without a timelock, or when it does not answer getMinDelay, the configured delay (a caller that
    ///      starves the query of gas only delays its own request).
    function _appliedFulfillmentDelay() private view returns (uint256 delay) {
        delay = _timing.fulfillmentDelay;
        address timelock = _timelock;
        if (timelock == address(0)) return delay;
        // Low-level, so that an admin of another kind (no getMinDelay, a short answer) cannot make requests revert.
        (bool ok, bytes memory answer) = timelock.staticcall{gas: _DELAY_QUERY_GAS}(
            abi.encodeCall(TimelockController.getMinDelay, ())
        );
        if (!ok || answer.length < 32) return delay;
        uint256 minDelay = abi.decode(answer, (uint256));
        uint256 bound = minDelay > EXIT_MARGIN ? minDelay - EXIT_MARGIN : 0;
        if (bound < delay) delay = bound;
    }

    /// @dev _accrueCarrying with its FeesAccrued event.
    function _accrueFeesAndEmit() internal {
        (, , uint256 managementFee) = _accrueCarrying();
        emit FeesAccrued(_feeConfig.recipient, managementFee, 0);
    }

    /// @dev Pays the fee recipient every asset the vault holds beyond its books (fees brought to date, and
    ///      anything sent to it outside deposits and reports). Unless `required`, a transfer the asset refuses
    ///      pays nothing (returns 0) and leaves the assets in the vault.
    function _payFees(bool required) private returns (uint256 assets) {
        IERC20 token = IERC20(asset());
        assets = _feeBalance(_hot);
        address recipient = _feeConfig.recipient;
        if (required) {
            SafeERC20.safeTransfer(token, recipient, assets);
        } else if (!SafeERC20.trySafeTransfer(token, recipient, assets)) {
            return 0;
        }
        emit FeesClaimed(recipient, assets);
    }

    /// @dev The vault's asset balance beyond the books of `s`: fees and assets sent to it, owed to the recipient.
    function _feeBalance(HotState s) private view returns (uint256) {
        return IERC20(asset()).balanceOf(address(this)) - s.accountedAssets();
    }

    /// @dev The state an exit of `owner` starts from: the books `s` with the management fee brought to date and the
    ///      owner's performance fee taken out, the holders' assets `total` and the supply with virtual shares after
    ///      it, the owner's settled position `held`, and the `fee` shares it burns (nothing written).
    function _settledForExit(
        address owner,
        SupplyState supply
    ) private view returns (HotState s, uint256 total, uint256 supplyWithVirtual, Position held, uint256 fee) {
        (s, total, , ) = _accrued(_hot, 0);
        supplyWithVirtual = supply.totalSupply() + _VIRTUAL_SHARES;
        uint256 feeAssets;
        (held, fee, feeAssets) = _holdings[owner].position.settledNow(supply, total, supplyWithVirtual);
        // Nothing owed: fee and feeAssets are 0 and change nothing below.
        s = s.withExit(feeAssets);
        total -= feeAssets;
        supplyWithVirtual -= fee;
    }

    /// @dev `held` with its performance fee owed settled at the price of `total` assets for `supplyWithVirtual`
    ///      shares (virtual shares included), as HolderLedger.settledNow: the fee shares it owes and the assets they
    ///      are worth, both rounded down, so that taking them out never lowers the price. Nothing is written.
    function _settled(
        Position held,
        uint256 total,
        uint256 supplyWithVirtual,
        SupplyState supply
    ) private view returns (Position settled, uint256 fee, uint256 feeAssets) {
        return held.settledNow(supply, total, supplyWithVirtual);
    }

    /// @dev Seconds over which `stillLocked + net` unlocks from now: the average of the time left of what is still
    ///      locked and a full unlock period for the new `net`, weighted by the amounts and rounded down, so that a
    ///      report of little or nothing cannot hold back profit that was already unlocking.
    function _unlockDuration(HotState s, uint256 stillLocked, uint256 net) private view returns (uint256) {
        uint256 period = _timing.profitUnlockPeriod;
        // stillLocked > 0 implies now < unlockEnd; amounts < 2**64 and times < 2**22: no overflow.
        if (stillLocked > 0) {
            return (stillLocked * (s.unlockEnd() - block.timestamp) + net * period) / (stillLocked + net);
        }
        return period;
    }

    /// @dev Mints, then pulls `assets` from the caller (OpenZeppelin's _deposit pulls first because its price reads
    ///      the asset balance; this vault's books already count the deposit, so the shares must exist before the
    ///      asset's transfer can call anyone back, or a callback would redeem at a price counting this deposit
    ///      without its shares).
    ///      The new shares join the receiver's position at the price they were bought at (`total` assets for
    ///      `supplyWithVirtual` shares).
    function _enter(
        address receiver,
        uint256 assets,
        uint256 shares,
        SupplyState supply,
        uint256 total,
        uint256 supplyWithVirtual
    ) private {
        if (receiver == address(0)) revert ERC20InvalidReceiver(address(0));
        Holding storage holding = _holdings[receiver];
        holding.position = holding.position.joinedNow(shares, supply, total, supplyWithVirtual);
        _supply = supply.withMinted(shares);
        emit Transfer(address(0), receiver, shares);
        SafeERC20.safeTransferFrom(IERC20(asset()), msg.sender, address(this), assets);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    /// @dev Spends the caller's allowance (none for the owner or its operator), burns `shares` and the `fee` shares
    ///      the owner's settled position `held` owed (one Transfer for both), then pays (as OpenZeppelin's _withdraw,
    ///      without its indirections).
    function _exit(
        address receiver,
        address owner,
        uint256 assets,
        uint256 shares,
        Holding storage holding,
        Position held,
        uint256 fee
    ) private {
        if (msg.sender != owner && !_operators[owner][msg.sender]) _spendAllowance(owner, msg.sender, shares);
        // Shares rounded up for assets within maxWithdraw never pass the balance; checked as OpenZeppelin's _update
        // does, so that no exit rests on that rounding argument alone.
        uint256 balance = held.shares();
        if (balance < shares) revert ERC20InsufficientBalance(owner, balance, shares);
        holding.position = held.without(shares);
        _supply = _supply.withBurnt(shares + fee);
        emit Transfer(owner, address(0), shares + fee);
        SafeERC20.safeTransfer(IERC20(asset()), receiver, assets);
        emit Withdraw(msg.sender, receiver, owner, assets, shares);
    }

    /// @dev OpenZeppelin's transfer and transferFrom reach here (the vault's own entries, exits, requests and fills
    ///      write positions directly): the shares move with the entry point they had, so a transfer neither pays
    ///      nor moves anyone's fee. Shares created or burnt here (never by the vault itself) enter at the current
    ///      price or leave unsettled.
    function _update(address from, address to, uint256 value) internal override {
        SupplyState supply = _supply;
        uint256 mark = supply.hurdleMark();
        uint256 price;
        uint256 entryMark = mark;
        if (from == address(0)) {
            (, uint256 total, , ) = _accrued(_hot, 0);
            price = HolderLedger.priceOf(total, supply.totalSupply() + _VIRTUAL_SHARES);
            _supply = supply.withMinted(value);
        } else {
            Position held = _holdings[from].position;
            uint256 balance = held.shares();
            if (balance < value) revert ERC20InsufficientBalance(from, balance, value);
            (price, entryMark) = (held.entryPrice(), held.entryMark());
            _holdings[from].position = held.without(value);
        }
        if (to == address(0)) {
            _supply = supply.withBurnt(value);
        } else {
            _holdings[to].position = _holdings[to].position.joined(value, price, entryMark, mark);
        }
        emit Transfer(from, to, value);
    }

    function _claim(
        RedeemState storage request,
        address receiver,
        address controller,
        uint256 assets,
        uint256 shares
    ) private {
        request.claimableShares -= uint128(shares);
        request.claimableAssets -= uint128(assets);
        _totalClaimableAssets -= assets;
        // From is the vault's own immutable escrow; see triage.
        // slither-disable-next-line arbitrary-send-erc20
        SafeERC20.safeTransferFrom(IERC20(asset()), _escrow, receiver, assets);
        emit Withdraw(msg.sender, receiver, controller, assets, shares);
    }

    function _checkControllerOrOperator(address controller) private view {
        if (controller != msg.sender && !_operators[controller][msg.sender]) {
            revert NotControllerOrOperator(msg.sender, controller);
        }
    }

    function _grantIfSet(bytes32 role, address account) private {
        if (account != address(0)) _grantRole(role, account);
    }

    function _setFeeRecipient(address recipient) internal {
        if (recipient == address(0)) revert ZeroAddress();
        _feeConfig.recipient = recipient;
        emit FeeRecipientUpdated(recipient);
    }

    function _setFees(uint16 managementBps, uint16 performanceBps, uint16 hurdleBps) internal {
        if (managementBps > MAX_MANAGEMENT_FEE_BPS) {
            revert ManagementFeeTooHigh(managementBps, MAX_MANAGEMENT_FEE_BPS);
        }
        if (performanceBps > MAX_PERFORMANCE_FEE_BPS) {
            revert PerformanceFeeTooHigh(performanceBps, MAX_PERFORMANCE_FEE_BPS);
        }
        if (hurdleBps > MAX_HURDLE_RATE_BPS) revert HurdleRateTooHigh(hurdleBps, MAX_HURDLE_RATE_BPS);
        if (uint256(hurdleBps) * performanceBps > uint256(managementBps) * _BPS) {
            revert HurdleBeyondManagementFee(hurdleBps, performanceBps, managementBps);
        }
        _hot = _hot.withManagementFeeBps(managementBps);
        _supply = _supply.withRates(performanceBps, hurdleBps);
        emit FeesUpdated(managementBps, performanceBps, hurdleBps);
    }

    function _setDepositCap(uint256 cap) internal {
        uint256 unit = _capUnit;
        if (cap >= HotStateLib.NO_CAP * unit) {
            _hot = _hot.withDepositCap(HotStateLib.NO_CAP);
            emit DepositCapUpdated(type(uint256).max);
            return;
        }
        if (cap % unit != 0) revert DepositCapNotWholeTokens(cap, unit);
        _hot = _hot.withDepositCap(cap / unit);
        emit DepositCapUpdated(cap);
    }

    function _setProfitUnlockPeriod(uint32 period) internal {
        if (period < MIN_PROFIT_UNLOCK_PERIOD || period > MAX_PROFIT_UNLOCK_PERIOD) {
            revert ProfitUnlockPeriodOutOfBounds(period, MIN_PROFIT_UNLOCK_PERIOD, MAX_PROFIT_UNLOCK_PERIOD);
        }
        _timing.profitUnlockPeriod = uint24(period);
        emit ProfitUnlockPeriodUpdated(period);
    }

    function _setFulfillmentDelay(uint32 delay) internal {
        uint256 maxDelay = _async ? MAX_FULFILLMENT_DELAY : 0;
        if (delay > maxDelay) revert FulfillmentDelayOutOfBounds(delay, maxDelay);
        _timing.fulfillmentDelay = uint24(delay);
        emit FulfillmentDelayUpdated(delay);
    }

    function _setAllocations(Allocation[] memory newAllocations) private {
        uint256 count = newAllocations.length;
        if (count > MAX_ALLOCATIONS) revert TooManyAllocations(count, MAX_ALLOCATIONS);
        delete _allocations;
        uint256 totalBps = 0;
        for (uint256 i = 0; i < count; ++i) {
            bytes32 id = newAllocations[i].strategyId;
            if (id == bytes32(0)) revert ZeroStrategyId(i);
            for (uint256 j = 0; j < i; ++j) {
                if (newAllocations[j].strategyId == id) revert DuplicateStrategyId(id);
            }
            totalBps += newAllocations[i].targetBps;
            _allocations.push(newAllocations[i]);
        }
        if (totalBps > _BPS) revert AllocationsExceedTotal(totalBps, _BPS);
        emit AllocationsUpdated(newAllocations);
    }
}
