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
import {INapVault} from "../interfaces/INapVault.sol";
import {IERC7540Operator, IERC7540Redeem, IERC7575} from "../interfaces/IERC7540.sol";
import {RedeemEscrow} from "./RedeemEscrow.sol";

/// @title NapVault
/// @notice A USDC vault on OpenZeppelin 5's ERC-4626, with fees, linearly unlocking profit, a deposit cap, pausing
///         of entries, recorded strategy allocations and, when built asynchronous, ERC-7540 redemption.
///
/// Inflation attack: the vault uses OpenZeppelin's virtual shares with a decimals offset of 6 (shares have 12
/// decimals for 6-decimal USDC). A deposit of `a` assets receives floor(a * (S + 1e6) / (A + 1)) shares, where S is
/// totalSupply and A totalAssets, so a depositor loses to rounding less than the value of one share unit,
/// (A + 1) / (S + 1e6) assets. To make that loss reach X assets an attacker must raise A to about X * (S + 1e6),
/// and the 1e6 virtual shares keep 1e6 / (S + 1e6) of every donation: an attacker holding s shares recovers at most
/// s / (S + 1e6) of what it donates. With s = 1e6 (a first deposit of 1 unit) the attacker loses half its donation
/// to make a victim lose at most donation / 1e6 + 1 units, so the attack never pays.
///
/// Profit: the harvester brings profit in with `report`; it is locked and counts in totalAssets only as it unlocks,
/// linearly over profitUnlockPeriod, so depositing just before a report and leaving just after earns nothing of it.
/// Assets sent to the vault without `report` (donations) count at once.
///
/// Fees: management (annual rate on totalAssets) and performance (share of the rise in price per share above a
/// high-water mark raised by an annual hurdle rate since the mark was set) are brought to date at each report,
/// fulfilment, fee change, fee-recipient change and on `accrueFees()` (anyone may call it), and paid as new shares
/// to the fee recipient. Management fee for the time between two accruals is charged on totalAssets at the second
/// one; deposits and exits do not accrue, to keep them cheap (see docs/vaults.md).
///
/// Asynchronous redemption (ERC-7540, when `isERC7540()`): `requestRedeem` moves shares into the vault; they stay
/// in totalSupply and keep bearing gains, losses and fees until the fulfiller fills the controller's whole pending
/// request, no earlier than fulfillmentDelay seconds after its latest request, at the price of that moment
/// (convertToAssets, rounded down). The shares are then burnt and the assets moved to the redeem escrow, fixed:
/// from then on the controller bears neither gains nor losses. Claims go through `redeem` / `withdraw` with the
/// controller as owner, by the controller or its operator; previewRedeem / previewWithdraw revert.
///
/// Pausing stops entries (deposit, mint, report): maxDeposit and maxMint return 0. Exits never pause: redeem,
/// withdraw, requestRedeem, fulfilment and claims stay open, and maxRedeem / maxWithdraw are unchanged.
///
/// Invariants: totalSupply equals the sum of balances (the vault's own balance holds pending request shares);
/// the escrow holds at least totalClaimableAssets; asset balance of the vault >= profit still locked;
/// every conversion rounds in favour of the vault.
contract NapVault is ERC4626, AccessControl, INapVault, IERC7540Operator, IERC7540Redeem, IERC7575 {
    using Math for uint256;
    using SafeCast for uint256;

    /// @notice May record strategy allocations.
    bytes32 public constant MANAGER_ROLE = keccak256("MANAGER_ROLE");
    /// @notice May bring profit in with `report`.
    bytes32 public constant HARVESTER_ROLE = keccak256("HARVESTER_ROLE");
    /// @notice May pause and unpause entries.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");
    /// @notice May fill ERC-7540 redeem requests.
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
    /// @notice Longest fulfilment delay of an asynchronous vault.
    uint256 public constant MAX_FULFILLMENT_DELAY = 30 days;
    /// @notice Most allocations one vault records.
    uint256 public constant MAX_ALLOCATIONS = 20;

    bytes4 private constant _IERC7575_ID = 0x2f0a18c5;
    uint256 private constant _BPS = 10_000;
    uint256 private constant _YEAR = 365 days;
    uint256 private constant _WAD = 1e18;
    uint8 private constant _DECIMALS_OFFSET = 6;
    uint256 private constant _VIRTUAL_SHARES = 10 ** _DECIMALS_OFFSET;
    uint88 private constant _NO_CAP = type(uint88).max;

    /// @dev Everything deposits and exits read, packed in one slot so the hot path costs one cold SLOAD.
    struct HotState {
        uint96 lockedProfit; // profit locked at the last report
        uint32 lastReport; // start of the current unlock
        uint32 unlockEnd; // end of the current unlock
        bool paused;
        uint88 depositCap; // _NO_CAP: none
    }

    /// @dev Read and written only by fee accrual and fee setters.
    struct FeeState {
        address recipient;
        uint16 managementBps;
        uint16 performanceBps;
        uint16 hurdleBps;
        uint32 lastAccrual;
    }

    /// @dev One controller's aggregated request (ERC-7540 request id 0).
    struct RedeemState {
        uint128 pendingShares;
        uint64 requestedAt;
        uint128 claimableShares;
        uint128 claimableAssets;
    }

    HotState private _hot;
    FeeState private _fees;
    uint256 private _highWaterMark;
    uint32 private _highWaterMarkTime;
    uint32 private _profitUnlockPeriod;
    uint32 private _fulfillmentDelay;
    uint256 private _totalClaimableAssets;
    Allocation[] private _allocations;
    mapping(address controller => RedeemState) private _redeems;
    mapping(address controller => mapping(address operator => bool)) private _operators;

    RiskLevel private immutable _riskLevel;
    bool private immutable _async;
    uint256 private immutable _createdAt;
    address private immutable _escrow;

    /// @param params Economic parameters (bounds checked).
    /// @param roles Role holders; `roles.admin` must be non-zero, other zero entries are left ungranted.
    /// @param initialAllocations Recorded allocation targets.
    constructor(
        VaultParams memory params,
        VaultRoles memory roles,
        Allocation[] memory initialAllocations
    ) ERC20(params.name, params.symbol) ERC4626(params.asset) {
        if (roles.admin == address(0)) revert ZeroAddress();
        _riskLevel = params.riskLevel;
        _async = params.asyncRedeem;
        _createdAt = block.timestamp;
        _escrow = params.asyncRedeem ? address(new RedeemEscrow(params.asset)) : address(0);

        _grantRole(DEFAULT_ADMIN_ROLE, roles.admin);
        _grantIfSet(MANAGER_ROLE, roles.manager);
        _grantIfSet(HARVESTER_ROLE, roles.harvester);
        _grantIfSet(GUARDIAN_ROLE, roles.guardian);
        _grantIfSet(FULFILLER_ROLE, roles.fulfiller);

        _fees.lastAccrual = uint32(block.timestamp);
        _highWaterMark = _WAD / _VIRTUAL_SHARES; // price of an empty vault: (0 + 1) * 1e18 / (0 + 1e6)
        _highWaterMarkTime = uint32(block.timestamp);
        _setFeeRecipient(params.feeRecipient);
        _setFees(params.managementFeeBps, params.performanceFeeBps, params.hurdleRateBps);
        _setDepositCap(params.depositCap);
        _setProfitUnlockPeriod(params.profitUnlockPeriod);
        _setFulfillmentDelay(params.fulfillmentDelay);
        _setAllocations(initialAllocations);
    }

    // ---------------------------------------------------------------- ERC-4626 hooks and overrides

    /// @notice Assets that belong to holders: the vault's asset balance minus profit still locked (rounded down).
    ///         Assets of filled requests are in the escrow and not counted.
    function totalAssets() public view override(ERC4626, IERC4626) returns (uint256) {
        return super.totalAssets() - _stillLocked();
    }

    /// @notice Most assets `receiver` may deposit: 0 while paused, otherwise depositCap - totalAssets (0 when the
    ///         cap is reached), or 2**256 - 1 without a cap.
    function maxDeposit(address) public view override(ERC4626, IERC4626) returns (uint256) {
        (uint256 room, ) = _depositRoom();
        return room;
    }

    /// @notice Most shares `receiver` may mint: the shares maxDeposit buys, rounded down (as convertToShares), so
    ///         minting them never needs more than maxDeposit; 0 while paused, 2**256 - 1 without a cap.
    function maxMint(address) public view override(ERC4626, IERC4626) returns (uint256) {
        (uint256 room, uint256 assets) = _depositRoom();
        if (room == 0 || room == type(uint256).max) return room;
        // convertToShares(room) with the totalAssets just read: the same formula as ERC4626._convertToShares,
        // written out only to spare a second balanceOf call on the mint path.
        return room.mulDiv(totalSupply() + _VIRTUAL_SHARES, assets + 1, Math.Rounding.Floor);
    }

    /// @notice Synchronous vault: the shares of `owner` (unchanged by pausing). Asynchronous vault: the claimable
    ///         shares of `owner` as controller.
    function maxRedeem(address owner) public view override(ERC4626, IERC4626) returns (uint256) {
        return _async ? _redeems[owner].claimableShares : super.maxRedeem(owner);
    }

    /// @notice Synchronous vault: previewRedeem(maxRedeem(owner)), rounded down (unchanged by pausing).
    ///         Asynchronous vault: the claimable assets of `owner` as controller.
    function maxWithdraw(address owner) public view override(ERC4626, IERC4626) returns (uint256) {
        return _async ? _redeems[owner].claimableAssets : super.maxWithdraw(owner);
    }

    /// @notice Synchronous vault: shares burnt to withdraw `assets`, rounded up. Reverts AsyncPreviewNotSupported
    ///         on an asynchronous vault, as ERC-7540 requires.
    function previewWithdraw(uint256 assets) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) revert AsyncPreviewNotSupported();
        return super.previewWithdraw(assets);
    }

    /// @notice Synchronous vault: assets paid for `shares`, rounded down. Reverts AsyncPreviewNotSupported on an
    ///         asynchronous vault, as ERC-7540 requires.
    function previewRedeem(uint256 shares) public view override(ERC4626, IERC4626) returns (uint256) {
        if (_async) revert AsyncPreviewNotSupported();
        return super.previewRedeem(shares);
    }

    /// @notice Synchronous vault: ERC-4626 withdraw (shares rounded up). Asynchronous vault: ERC-7540 claim of
    ///         `assets` from the filled requests of `controller`, by it or its operator; shares counted against the
    ///         claim are rounded up (all of them when the whole claim is taken).
    function withdraw(
        uint256 assets,
        address receiver,
        address controller
    ) public override(ERC4626, IERC4626) returns (uint256) {
        if (!_async) return super.withdraw(assets, receiver, controller);
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 claimableAssets = request.claimableAssets;
        if (assets > claimableAssets) revert ERC4626ExceededMaxWithdraw(controller, assets, claimableAssets);
        uint256 claimableShares = request.claimableShares;
        uint256 shares = assets == claimableAssets
            ? claimableShares
            : assets.mulDiv(claimableShares, claimableAssets, Math.Rounding.Ceil);
        _claim(request, receiver, controller, assets, shares);
        return shares;
    }

    /// @notice Synchronous vault: ERC-4626 redeem (assets rounded down). Asynchronous vault: ERC-7540 claim of
    ///         `shares` from the filled requests of `controller`, by it or its operator, at their average fill
    ///         price, rounded down (all the assets when the whole claim is taken).
    function redeem(
        uint256 shares,
        address receiver,
        address controller
    ) public override(ERC4626, IERC4626) returns (uint256) {
        if (!_async) return super.redeem(shares, receiver, controller);
        _checkControllerOrOperator(controller);
        RedeemState storage request = _redeems[controller];
        uint256 claimableShares = request.claimableShares;
        if (shares > claimableShares) revert ERC4626ExceededMaxRedeem(controller, shares, claimableShares);
        uint256 claimableAssets = request.claimableAssets;
        uint256 assets = shares == claimableShares
            ? claimableAssets
            : shares.mulDiv(claimableAssets, claimableShares, Math.Rounding.Floor);
        _claim(request, receiver, controller, assets, shares);
        return assets;
    }

    /// @dev Entries are refused while paused even for zero amounts (maxDeposit / maxMint already refuse the rest).
    function _deposit(address caller, address receiver, uint256 assets, uint256 shares) internal override {
        if (_hot.paused) revert VaultIsPaused();
        super._deposit(caller, receiver, assets, shares);
    }

    function _decimalsOffset() internal pure override returns (uint8) {
        return _DECIMALS_OFFSET;
    }

    // ---------------------------------------------------------------- ERC-7540

    /// @inheritdoc IERC7540Redeem
    /// @dev The caller must be `owner`, its operator, or hold an ERC-20 allowance of `owner` for `shares` (spent).
    ///      Each request restarts the fulfilment delay of the controller's whole pending amount. Open while paused.
    function requestRedeem(uint256 shares, address controller, address owner) external returns (uint256) {
        if (!_async) revert AsyncRedeemNotSupported();
        if (shares == 0) revert ZeroShares();
        if (controller == address(0)) revert ZeroAddress();
        if (owner != msg.sender && !_operators[owner][msg.sender]) _spendAllowance(owner, msg.sender, shares);
        _transfer(owner, address(this), shares);
        RedeemState storage request = _redeems[controller];
        request.pendingShares += shares.toUint128();
        request.requestedAt = uint64(block.timestamp);
        emit RedeemRequest(controller, owner, 0, msg.sender, shares);
        return 0;
    }

    /// @inheritdoc INapVault
    /// @dev Fees are brought to date first, so the shares leaving pay their part. Open while paused.
    function fulfillRedeem(address controller) external onlyRole(FULFILLER_ROLE) returns (uint256 assets) {
        RedeemState storage request = _redeems[controller];
        uint256 shares = request.pendingShares;
        if (shares == 0) revert NothingToFulfill(controller);
        uint256 readyAt = uint256(request.requestedAt) + _fulfillmentDelay;
        if (block.timestamp < readyAt) revert FulfillmentNotReady(controller, readyAt, block.timestamp);
        _accrueFees();
        assets = _convertToAssets(shares, Math.Rounding.Floor);
        request.pendingShares = 0;
        request.claimableShares += uint128(shares);
        request.claimableAssets += assets.toUint128();
        _totalClaimableAssets += assets;
        _burn(address(this), shares);
        SafeERC20.safeTransfer(IERC20(asset()), _escrow, assets);
        emit RedeemFulfilled(controller, msg.sender, shares, assets);
    }

    /// @inheritdoc IERC7540Redeem
    function pendingRedeemRequest(uint256, address controller) external view returns (uint256) {
        return _redeems[controller].pendingShares;
    }

    /// @inheritdoc IERC7540Redeem
    function claimableRedeemRequest(uint256, address controller) external view returns (uint256) {
        return _redeems[controller].claimableShares;
    }

    /// @inheritdoc IERC7540Operator
    function setOperator(address operator, bool approved) external returns (bool) {
        _operators[msg.sender][operator] = approved;
        emit OperatorSet(msg.sender, operator, approved);
        return true;
    }

    /// @inheritdoc IERC7540Operator
    function isOperator(address controller, address operator) external view returns (bool) {
        return _operators[controller][operator];
    }

    /// @inheritdoc IERC7575
    function share() external view returns (address) {
        return address(this);
    }

    /// @notice ERC-165: AccessControl, ERC-7575, and for asynchronous vaults ERC-7540 operator and redeem.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        if (interfaceId == _IERC7575_ID) return true;
        if (
            _async &&
            (interfaceId == type(IERC7540Operator).interfaceId || interfaceId == type(IERC7540Redeem).interfaceId)
        ) return true;
        return super.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- roles' actions

    /// @inheritdoc INapVault
    function pause() external onlyRole(GUARDIAN_ROLE) {
        if (_hot.paused) revert VaultIsPaused();
        _hot.paused = true;
        emit Paused(msg.sender);
    }

    /// @inheritdoc INapVault
    function unpause() external onlyRole(GUARDIAN_ROLE) {
        if (!_hot.paused) revert VaultIsNotPaused();
        _hot.paused = false;
        emit Unpaused(msg.sender);
    }

    /// @inheritdoc INapVault
    function report(uint256 gain) external onlyRole(HARVESTER_ROLE) {
        if (_hot.paused) revert VaultIsPaused();
        // Fees first, on the state before the new profit (which is locked and not yet earned by holders).
        _accrueFees();
        HotState memory hot = _hot;
        uint256 locked = _stillLocked(hot) + gain;
        hot.lockedProfit = locked.toUint96();
        hot.lastReport = uint32(block.timestamp);
        hot.unlockEnd = uint32(block.timestamp + _profitUnlockPeriod);
        _hot = hot;
        SafeERC20.safeTransferFrom(IERC20(asset()), msg.sender, address(this), gain);
        emit Reported(msg.sender, gain, locked, hot.unlockEnd);
    }

    /// @inheritdoc INapVault
    function accrueFees() external {
        _accrueFees();
    }

    /// @inheritdoc INapVault
    function setAllocations(Allocation[] calldata newAllocations) external onlyRole(MANAGER_ROLE) {
        _setAllocations(newAllocations);
    }

    /// @inheritdoc INapVault
    function setFeeRecipient(address recipient) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _accrueFees();
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
        return _fulfillmentDelay;
    }

    /// @inheritdoc INapVault
    function createdAt() external view returns (uint256) {
        return _createdAt;
    }

    /// @inheritdoc INapVault
    function paused() external view returns (bool) {
        return _hot.paused;
    }

    /// @inheritdoc INapVault
    function depositCap() external view returns (uint256) {
        uint88 cap = _hot.depositCap;
        return cap == _NO_CAP ? type(uint256).max : cap;
    }

    /// @inheritdoc INapVault
    function profitUnlockPeriod() external view returns (uint256) {
        return _profitUnlockPeriod;
    }

    /// @inheritdoc INapVault
    function managementFeeBps() external view returns (uint256) {
        return _fees.managementBps;
    }

    /// @inheritdoc INapVault
    function performanceFeeBps() external view returns (uint256) {
        return _fees.performanceBps;
    }

    /// @inheritdoc INapVault
    function hurdleRateBps() external view returns (uint256) {
        return _fees.hurdleBps;
    }

    /// @inheritdoc INapVault
    function feeRecipient() external view returns (address) {
        return _fees.recipient;
    }

    /// @inheritdoc INapVault
    function lastFeeAccrual() external view returns (uint256) {
        return _fees.lastAccrual;
    }

    /// @inheritdoc INapVault
    function highWaterMark() external view returns (uint256 pricePerShareWad, uint256 setAt) {
        return (_highWaterMark, _highWaterMarkTime);
    }

    /// @inheritdoc INapVault
    function profitUnlock()
        external
        view
        returns (uint256 lockedAtReport, uint256 lastReport, uint256 unlockEnd, uint256 stillLocked)
    {
        HotState memory hot = _hot;
        return (hot.lockedProfit, hot.lastReport, hot.unlockEnd, _stillLocked(hot));
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

    /// @dev Room left under the cap (0 while paused, 2**256 - 1 without a cap) and totalAssets when it was needed.
    ///      Reads the packed hot slot once.
    function _depositRoom() private view returns (uint256 room, uint256 assets) {
        HotState memory hot = _hot;
        if (hot.paused) return (0, 0);
        if (hot.depositCap == _NO_CAP) return (type(uint256).max, 0);
        assets = super.totalAssets() - _stillLocked(hot);
        room = hot.depositCap > assets ? hot.depositCap - assets : 0;
    }

    /// @dev Profit still locked now, reading only the end of the unlock unless it is still running.
    function _stillLocked() private view returns (uint256) {
        if (block.timestamp >= _hot.unlockEnd) return 0;
        return _stillLocked(_hot);
    }

    /// @dev Profit still locked: lockedProfit * (unlockEnd - now) / (unlockEnd - lastReport), rounded down.
    function _stillLocked(HotState memory hot) private view returns (uint256) {
        if (block.timestamp >= hot.unlockEnd) return 0;
        return uint256(hot.lockedProfit).mulDiv(hot.unlockEnd - block.timestamp, hot.unlockEnd - hot.lastReport);
    }

    /// @dev Brings fees to date. Management fee: totalAssets * bps * elapsed / (10,000 * 365 days). Performance
    ///      fee: performanceBps of (price - threshold) * supply, where price is the price per share after the
    ///      management fee and threshold = highWaterMark * (1 + hurdle * (now - markTime) / 365 days); then the mark
    ///      moves to the price after fees. Fee shares = fee * (supply + 1e6) / (totalAssets - fee + 1), rounded
    ///      down, so that they are worth the fee and no more. All amounts are rounded down (for the holders).
    function _accrueFees() internal {
        FeeState memory fees = _fees;
        uint256 elapsed = block.timestamp - fees.lastAccrual;
        if (elapsed == 0) return;
        _fees.lastAccrual = uint32(block.timestamp);
        uint256 supply = totalSupply();
        if (supply == 0) return; // nobody to charge

        uint256 assets = totalAssets();
        uint256 virtualSupply = supply + _VIRTUAL_SHARES;
        uint256 managementFee = Math.min(assets.mulDiv(fees.managementBps * elapsed, _BPS * _YEAR), assets);
        uint256 price = (assets - managementFee + 1).mulDiv(_WAD, virtualSupply);
        uint256 mark = _highWaterMark;
        uint256 threshold = mark + mark.mulDiv(fees.hurdleBps * (block.timestamp - _highWaterMarkTime), _BPS * _YEAR);
        uint256 performanceFee;
        if (price > threshold) {
            performanceFee = (price - threshold).mulDiv(supply, _WAD).mulDiv(fees.performanceBps, _BPS);
        }
        uint256 fee = managementFee + performanceFee;
        uint256 feeShares = fee.mulDiv(virtualSupply, assets - fee + 1);
        if (feeShares > 0) _mint(fees.recipient, feeShares);
        uint256 priceAfter = (assets + 1).mulDiv(_WAD, virtualSupply + feeShares);
        if (price > threshold) {
            _highWaterMark = priceAfter;
            _highWaterMarkTime = uint32(block.timestamp);
        }
        emit FeesAccrued(fees.recipient, managementFee, performanceFee, feeShares, priceAfter);
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
        _fees.recipient = recipient;
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
        _fees.managementBps = managementBps;
        _fees.performanceBps = performanceBps;
        _fees.hurdleBps = hurdleBps;
        emit FeesUpdated(managementBps, performanceBps, hurdleBps);
    }

    function _setDepositCap(uint256 cap) internal {
        uint88 stored = cap >= _NO_CAP ? _NO_CAP : uint88(cap);
        _hot.depositCap = stored;
        emit DepositCapUpdated(stored == _NO_CAP ? type(uint256).max : cap);
    }

    function _setProfitUnlockPeriod(uint32 period) internal {
        if (period < MIN_PROFIT_UNLOCK_PERIOD || period > MAX_PROFIT_UNLOCK_PERIOD) {
            revert ProfitUnlockPeriodOutOfBounds(period, MIN_PROFIT_UNLOCK_PERIOD, MAX_PROFIT_UNLOCK_PERIOD);
        }
        _profitUnlockPeriod = period;
        emit ProfitUnlockPeriodUpdated(period);
    }

    function _setFulfillmentDelay(uint32 delay) internal {
        uint256 maxDelay = _async ? MAX_FULFILLMENT_DELAY : 0;
        if (delay > maxDelay) revert FulfillmentDelayOutOfBounds(delay, maxDelay);
        _fulfillmentDelay = delay;
        emit FulfillmentDelayUpdated(delay);
    }

    function _setAllocations(Allocation[] memory newAllocations) private {
        uint256 count = newAllocations.length;
        if (count > MAX_ALLOCATIONS) revert TooManyAllocations(count, MAX_ALLOCATIONS);
        delete _allocations;
        uint256 totalBps;
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
