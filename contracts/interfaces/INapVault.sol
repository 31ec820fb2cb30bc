// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title INapVault
/// @notice What a NAP vault adds to ERC-4626: risk level, recorded strategy allocations, fees, linear unlocking of
///         reported profit, pausing of entries, and (for asynchronous vaults) ERC-7540 redemption with ERC-7887
///         cancelation.
/// @dev The ERC-7540 functions are declared in IERC7540.sol; this file holds the NAP-specific part.
interface INapVault is IERC4626 {
    /// @notice How much risk the vault's strategies take; the data API reports it.
    enum RiskLevel {
        CONSERVATIVE,
        MODERATE,
        AGGRESSIVE
    }

    /// @notice A recorded target: `targetBps` of the vault's assets meant for strategy `strategyId`
    ///         (the id in StrategyRegistryV3). No capital moves to strategies yet.
    struct Allocation {
        bytes32 strategyId;
        uint16 targetBps;
    }

    /// @notice Everything fixed or initial at deployment.
    /// @param asset The underlying token (USDC).
    /// @param name ERC-20 name of the share.
    /// @param symbol ERC-20 symbol of the share.
    /// @param riskLevel Risk level reported to the data API.
    /// @param asyncRedeem True for ERC-7540 asynchronous redemption; false for ERC-4626 synchronous exits.
    /// @param managementFeeBps Annual management fee in basis points (at most MAX_MANAGEMENT_FEE_BPS).
    /// @param performanceFeeBps Share of profit above the hurdle taken as fee (at most MAX_PERFORMANCE_FEE_BPS).
    /// @param hurdleRateBps Annual return holders keep before any performance fee (at most MAX_HURDLE_RATE_BPS, and
    ///        hurdleRateBps * performanceFeeBps at most managementFeeBps * 10,000: HurdleBeyondManagementFee).
    /// @param depositCap Largest totalAssets that deposits may reach, in asset units and a whole number of tokens
    ///        (10**assetDecimals units); values >= (2**32 - 1) * 10**assetDecimals mean no cap.
    /// @param profitUnlockPeriod Seconds over which a reported profit unlocks linearly.
    /// @param fulfillmentDelay Seconds a redeem request waits before it may be filled (0 for synchronous vaults).
    /// @param feeRecipient Receives the fees (in assets, with claimFees).
    struct VaultParams {
        IERC20 asset;
        string name;
        string symbol;
        RiskLevel riskLevel;
        bool asyncRedeem;
        uint16 managementFeeBps;
        uint16 performanceFeeBps;
        uint16 hurdleRateBps;
        uint256 depositCap;
        uint32 profitUnlockPeriod;
        uint32 fulfillmentDelay;
        address feeRecipient;
    }

    /// @notice Holders of the roles at deployment; the deployer itself receives none.
    /// @param admin DEFAULT_ADMIN_ROLE: grants roles, sets the fee recipient (and parameters of a configurable
    ///        vault). The governance timelock once deployed.
    /// @param manager MANAGER_ROLE: records strategy allocations.
    /// @param harvester HARVESTER_ROLE: brings profit in with `report`.
    /// @param guardian GUARDIAN_ROLE: pauses and unpauses entries.
    /// @param fulfiller FULFILLER_ROLE: fills ERC-7540 redeem requests as soon as they are ready (anyone may after
    ///        a further FULFILLMENT_GRACE_PERIOD).
    struct VaultRoles {
        address admin;
        address manager;
        address harvester;
        address guardian;
        address fulfiller;
    }

    /// @notice Emitted when fees are brought to date by accrueFees, claimFees, report, a fee change or a fee
    ///         recipient change (deposits, exits and fills bring the management fee to date without an event, to
    ///         stay cheap): `managementFee` assets leave the holders' books for `recipient`.
    /// @param recipient The fee recipient.
    /// @param managementFee Management fee, in assets (rounded down; the fraction is carried).
    /// @param performanceFee Always 0: the performance fee is settled per holder (PerformanceFeeCharged, and the
    ///        fee shares burnt with an exit).
    event FeesAccrued(address indexed recipient, uint256 managementFee, uint256 performanceFee);

    /// @notice Emitted when the assets owed to the fee recipient are paid out to it.
    /// @param recipient The fee recipient.
    /// @param assets Assets paid.
    event FeesClaimed(address indexed recipient, uint256 assets);

    /// @notice Emitted when `harvester` brings `gain` assets in: `lockedProfit` (the gain plus what was still
    ///         locked) unlocks linearly until `unlockEnd`.
    /// @param harvester Caller of `report`.
    /// @param gain Assets brought in.
    /// @param performanceFee Always 0: each holder's performance fee is settled on what unlocks to it.
    /// @param lockedProfit Profit locked from now on.
    /// @param unlockEnd Timestamp at which all of it has unlocked.
    event Reported(
        address indexed harvester,
        uint256 gain,
        uint256 performanceFee,
        uint256 lockedProfit,
        uint256 unlockEnd
    );

    /// @notice Emitted when the fee rates are set (at deployment and on changes).
    /// @param managementFeeBps Annual management fee.
    /// @param performanceFeeBps Performance fee.
    /// @param hurdleRateBps Annual hurdle rate.
    event FeesUpdated(uint256 managementFeeBps, uint256 performanceFeeBps, uint256 hurdleRateBps);

    /// @notice Emitted when `settle` or a fill takes the performance fee `holder` (a controller, for a fill) owed:
    ///         `shares` burnt, worth `assets` that leave the holders' books for the fee recipient. An exit burns the
    ///         fee shares with its own (one Transfer for both) without this event.
    /// @param holder Holder or controller.
    /// @param shares Fee shares burnt.
    /// @param assets Assets they were worth (rounded down).
    event PerformanceFeeCharged(address indexed holder, uint256 shares, uint256 assets);

    /// @notice Emitted when the fee recipient is set.
    /// @param feeRecipient The new recipient.
    event FeeRecipientUpdated(address indexed feeRecipient);

    /// @notice Emitted when the deposit cap is set; 2**256 - 1 means no cap.
    /// @param depositCap The new cap.
    event DepositCapUpdated(uint256 depositCap);

    /// @notice Emitted when the profit unlock period is set.
    /// @param profitUnlockPeriod The new period in seconds.
    event ProfitUnlockPeriodUpdated(uint256 profitUnlockPeriod);

    /// @notice Emitted when the fulfilment delay is set.
    /// @param fulfillmentDelay The new delay in seconds.
    event FulfillmentDelayUpdated(uint256 fulfillmentDelay);

    /// @notice Emitted when the recorded strategy allocations are replaced.
    /// @param allocations The whole new list.
    event AllocationsUpdated(Allocation[] allocations);

    /// @notice Emitted when `account` pauses entries (deposit, mint, report).
    /// @param account The guardian.
    event Paused(address account);

    /// @notice Emitted when `account` lifts the pause.
    /// @param account The guardian.
    event Unpaused(address account);

    /// @notice Emitted when `fulfiller` fills the whole pending request of `controller`: `shares` burnt for `assets`.
    /// @param controller Controller of the request.
    /// @param fulfiller Caller of `fulfillRedeem` (the fulfiller role, or anyone after the grace period).
    /// @param shares Shares burnt.
    /// @param assets Assets set aside in the escrow (rounded down).
    event RedeemFulfilled(address indexed controller, address indexed fulfiller, uint256 shares, uint256 assets);

    /// @notice Thrown when an entry (deposit, mint, report) or `pause` is attempted while the vault is paused.
    error VaultIsPaused();

    /// @notice Thrown when `unpause` is called on a vault that is not paused.
    error VaultIsNotPaused();

    /// @notice Thrown when a required address (admin, fee recipient, controller) is the zero address.
    error ZeroAddress();

    /// @notice Thrown when the management fee `bps` is above `maxBps`.
    error ManagementFeeTooHigh(uint256 bps, uint256 maxBps);

    /// @notice Thrown when the performance fee `bps` is above `maxBps`.
    error PerformanceFeeTooHigh(uint256 bps, uint256 maxBps);

    /// @notice Thrown when the hurdle rate `bps` is above `maxBps`.
    error HurdleRateTooHigh(uint256 bps, uint256 maxBps);

    /// @notice Thrown when the hurdle rate `hurdleBps` times the performance fee `performanceBps` is above the
    ///         management fee `managementBps` times 10,000: a bound of the fee configuration kept from when the
    ///         hurdle was measured by the management fee (the per-holder hurdle no longer needs it).
    error HurdleBeyondManagementFee(uint256 hurdleBps, uint256 performanceBps, uint256 managementBps);

    /// @notice Thrown when a deposit `cap` below the no-cap bound is not a whole number of tokens (`unit` units).
    error DepositCapNotWholeTokens(uint256 cap, uint256 unit);

    /// @notice Thrown when a report would bring the vault's books (holders' assets plus profit still locked) to
    ///         `assets`, more than `maxAssets` (2**64 - 1).
    error ReportTooLarge(uint256 assets, uint256 maxAssets);

    /// @notice Thrown when the profit unlock `period` is outside [`minPeriod`, `maxPeriod`].
    error ProfitUnlockPeriodOutOfBounds(uint256 period, uint256 minPeriod, uint256 maxPeriod);

    /// @notice Thrown when the fulfilment `delay` is above `maxDelay` (0 for synchronous vaults).
    error FulfillmentDelayOutOfBounds(uint256 delay, uint256 maxDelay);

    /// @notice Thrown when `count` allocations are given and at most `maxCount` are allowed.
    error TooManyAllocations(uint256 count, uint256 maxCount);

    /// @notice Thrown when allocation number `index` has the zero strategy id.
    error ZeroStrategyId(uint256 index);

    /// @notice Thrown when `strategyId` appears twice in one allocation list.
    error DuplicateStrategyId(bytes32 strategyId);

    /// @notice Thrown when allocation targets sum to `totalBps`, above `maxBps` (10,000).
    error AllocationsExceedTotal(uint256 totalBps, uint256 maxBps);

    /// @notice Thrown when an ERC-7540 function is called on a synchronous vault.
    error AsyncRedeemNotSupported();

    /// @notice Thrown by previewRedeem / previewWithdraw of an asynchronous vault, as ERC-7540 requires.
    error AsyncPreviewNotSupported();

    /// @notice Thrown when a redeem request of zero shares is made.
    error ZeroShares();

    /// @notice Thrown when `caller` acts for `controller` without being it or its operator.
    error NotControllerOrOperator(address caller, address controller);

    /// @notice Thrown when `controller` has no pending request to fill.
    error NothingToFulfill(address controller);

    /// @notice Thrown when the request of `controller` may be filled by this caller only from `readyAt` and it is
    ///         `nowTime` (the fulfiller from the request's ready time, anyone else a grace period later).
    error FulfillmentNotReady(address controller, uint256 readyAt, uint256 nowTime);

    /// @notice Thrown when `controller` has no pending request to cancel.
    error NothingToCancel(address controller);

    /// @notice Thrown when `controller` has no shares of canceled requests to claim.
    error NothingToClaim(address controller);

    /// @notice Pauses entries: deposit, mint and report. Exits stay open (redeem, withdraw, requestRedeem,
    ///         cancelation, fulfilment, claims, fee claims, share transfers), so holders can always leave.
    /// @dev Only GUARDIAN_ROLE. Reverts VaultIsPaused if already paused.
    function pause() external;

    /// @notice Lifts the pause. Only GUARDIAN_ROLE. Reverts VaultIsNotPaused if not paused.
    function unpause() external;

    /// @notice Brings `gain` assets in from the caller (HARVESTER_ROLE). The management fee is brought to date
    ///         first; then the whole gain is locked with whatever was still locked and unlocks linearly until a new
    ///         end: the average of the old end and a full profitUnlockPeriod from now, weighted by the two amounts
    ///         (rounded down), so a small or zero report never holds back profit that was already unlocking. The
    ///         performance fee is settled per holder on what unlocks to it, beyond its own hurdle (settle).
    /// @dev Reverts VaultIsPaused while paused, ReportTooLarge if the holders' assets and locked profit would pass
    ///      2**64 - 1. The caller must have approved the vault for `gain`.
    /// @param gain Assets to bring in; 0 only brings the management fee to date.
    function report(uint256 gain) external;

    /// @notice Brings the management fee to date (managementFeeBps a year of totalAssets for the time since the
    ///         last accrual), carrying the fraction of an asset unit that rounding leaves to the next call, so that
    ///         calling it often never lowers what the fee recipient earns. Anyone may call.
    function accrueFees() external;

    /// @notice Brings fees to date (as accrueFees) and pays the fee recipient every asset the vault holds beyond
    ///         its books: the fees, and anything sent to the vault outside deposits and reports. Anyone may call; the
    ///         assets always go to the recipient.
    /// @return assets Assets paid.
    function claimFees() external returns (uint256 assets);

    /// @notice Replaces the recorded allocations (MANAGER_ROLE). At most MAX_ALLOCATIONS, non-zero distinct ids,
    ///         targets summing to at most 10,000 bps.
    /// @param newAllocations The whole new list (replaces the old one).
    function setAllocations(Allocation[] calldata newAllocations) external;

    /// @notice Settles the performance fee `holder` owes (performanceFeeOwed): burns those shares and moves the
    ///         assets they are worth (rounded down) from the holders' books to the fee recipient's balance; the
    ///         holder's position then counts its gain and hurdle from the price of now. Nothing happens while the
    ///         holder is at or below its hurdle (its hurdle keeps growing from its entry point), nor for the vault's
    ///         own shares (requests are settled at their fill). Anyone may call.
    /// @param holder The holder.
    /// @return fee Fee shares burnt.
    function settle(address holder) external returns (uint256 fee);

    /// @notice Exits the whole position: synchronous vault, settles the performance fee `owner` owes and redeems
    ///         every share left, its maxRedeem of this block (redeem(maxRedeem) read a block earlier reverts while
    ///         profit unlocks, as the fee owed grows); asynchronous vault, claims every claimable share of `owner` as
    ///         controller, by it or its operator. As redeem otherwise: the caller needs an allowance of `owner` for
    ///         the shares redeemed unless it is `owner` or its operator, one Withdraw event, open while paused.
    /// @param receiver Receives the assets.
    /// @param owner Share owner (synchronous) or controller of the filled requests (asynchronous).
    /// @return shares Shares redeemed (the fee shares burnt with them are not counted).
    /// @return assets Assets paid out (maxWithdraw(owner) of this block).
    function redeemAll(address receiver, address owner) external returns (uint256 shares, uint256 assets);

    /// @notice Sets the fee recipient (DEFAULT_ADMIN_ROLE). Fees are brought to date and paid to the old recipient
    ///         first; if the asset refuses that transfer (a blacklisted recipient), they stay for the new one.
    /// @param recipient The new recipient (non-zero).
    function setFeeRecipient(address recipient) external;

    /// @notice Fills the whole pending redeem request of `controller` at the price of that moment (convertToAssets
    ///         after bringing the management fee to date, rounded down), less the performance fee the requested
    ///         shares owe from the entry point they came with: the shares are burnt and the assets set aside in the
    ///         escrow for the controller's claims. FULFILLER_ROLE may fill from the request's ready
    ///         time (pendingRedeemReadyAt); anyone may fill FULFILLMENT_GRACE_PERIOD later, so that exits never
    ///         depend on the role. Open while paused.
    /// @param controller Controller whose pending request is filled.
    /// @return assets The assets set aside.
    function fulfillRedeem(address controller) external returns (uint256 assets);

    /// @notice When the pending request of `controller` becomes fillable by FULFILLER_ROLE (anyone may fill it
    ///         FULFILLMENT_GRACE_PERIOD later); 0 when nothing is pending. Set by the controller's latest request:
    ///         request time + the fulfilment delay in force then.
    /// @param controller The controller.
    /// @return readyAt Timestamp.
    function pendingRedeemReadyAt(address controller) external view returns (uint256 readyAt);

    /// @notice Risk level of the vault.
    function riskLevel() external view returns (RiskLevel);

    /// @notice True when redemption is asynchronous (ERC-7540).
    function isERC7540() external view returns (bool);

    /// @notice Seconds a redeem request waits before it may be filled, as configured (0 for synchronous vaults).
    function fulfillmentDelay() external view returns (uint256);

    /// @notice Seconds a redeem request made now waits before it may be filled: fulfillmentDelay, at most the delay
    ///         of governanceTimelock less EXIT_MARGIN, so that a holder who asks to leave when a proposal is queued
    ///         can be out before it executes.
    function appliedFulfillmentDelay() external view returns (uint256);

    /// @notice The admin at deployment when it was a contract (the governance timelock), whose getMinDelay bounds
    ///         appliedFulfillmentDelay; zero when the admin was an account without code (no bound).
    function governanceTimelock() external view returns (address);

    /// @notice Block timestamp of the vault's deployment.
    function createdAt() external view returns (uint256);

    /// @notice True while entries are paused.
    function paused() external view returns (bool);

    /// @notice Largest totalAssets deposits may reach; 2**256 - 1 means no cap.
    function depositCap() external view returns (uint256);

    /// @notice Seconds over which a reported profit unlocks.
    function profitUnlockPeriod() external view returns (uint256);

    /// @notice Annual management fee in basis points.
    function managementFeeBps() external view returns (uint256);

    /// @notice Performance fee in basis points of each holder's gain above its own hurdle.
    function performanceFeeBps() external view returns (uint256);

    /// @notice Annual hurdle rate in basis points.
    function hurdleRateBps() external view returns (uint256);

    /// @notice Receives the fees.
    function feeRecipient() external view returns (address);

    /// @notice Timestamp up to which the management fee has been recorded (every deposit, exit, fill and fee
    ///         accrual moves it to its block).
    function lastFeeAccrual() external view returns (uint256);

    /// @notice The vault's books: holders' assets plus profit still locked, as of lastFeeAccrual (the management
    ///         fee since then not yet taken). Every deposit, exit, fill, report and fee accrual updates it; the
    ///         vault's asset balance beyond it belongs to the fee recipient.
    function accountedAssets() external view returns (uint256);

    /// @notice Assets claimFees would pay now: the vault's asset balance beyond its books (holders' assets and
    ///         profit still locked), the management fee since lastFeeAccrual counted with the fraction of a unit
    ///         carried by the last explicit accrual (rounded down, exactly as claimFees takes it). Assets sent to the
    ///         vault outside deposits and reports count here, for no holder.
    function feesOwed() external view returns (uint256);

    /// @notice Performance fee `holder` owes now: performanceFeeBps of its gain beyond its hurdle (positionOf), as
    ///         `shares` (rounded down) worth `assets` (rounded down); what settle, or its next exit, takes. 0 for the
    ///         vault's own shares (requests owe theirs at the fill).
    /// @param holder The holder.
    /// @return shares Fee shares owed.
    /// @return assets Assets they are worth.
    function performanceFeeOwed(address holder) external view returns (uint256 shares, uint256 assets);

    /// @notice The position of `holder`: its shares and the point its gain and hurdle count from, the share price
    ///         (`entryPrice`, assets per share unit times 2**67) and the hurdle accumulator (`entryMark`). It owes
    ///         performance fee above the hurdle price entryPrice * (1 + (hurdleMark() - entryMark) / (10,000 x
    ///         365 days)).
    /// @param holder The holder.
    /// @return shares Share balance.
    /// @return entryPrice Share price at the entry point.
    /// @return entryMark Hurdle accumulator at the entry point.
    function positionOf(address holder) external view returns (uint256 shares, uint256 entryPrice, uint256 entryMark);

    /// @notice The hurdle accumulator now: hurdleRateBps times seconds, summed since the vault's creation at the
    ///         rates in force over time.
    function hurdleMark() external view returns (uint256);

    /// @notice State of profit unlocking: `lockedAtReport` assets locked at the last report at `lastReport`,
    ///         unlocking linearly until `unlockEnd`; `stillLocked` is what remains locked now (rounded down).
    /// @return lockedAtReport Profit locked by the last report.
    /// @return lastReport Timestamp of the last report.
    /// @return unlockEnd Timestamp at which it has all unlocked.
    /// @return stillLocked Profit still locked now.
    function profitUnlock()
        external
        view
        returns (uint256 lockedAtReport, uint256 lastReport, uint256 unlockEnd, uint256 stillLocked);

    /// @notice The recorded strategy allocations.
    function allocations() external view returns (Allocation[] memory);

    /// @notice Contract holding the assets of filled, unclaimed redeem requests (zero for synchronous vaults).
    function redeemEscrow() external view returns (address);

    /// @notice Sum of assets of filled, unclaimed redeem requests of all controllers.
    function totalClaimableAssets() external view returns (uint256);
}
