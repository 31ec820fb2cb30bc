// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title INapVault
/// @notice What a NAP vault adds to ERC-4626: risk level, recorded strategy allocations, fees, linear unlocking of
///         reported profit, pausing of entries, and (for asynchronous vaults) ERC-7540 redemption.
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
    /// @param hurdleRateBps Annual return holders keep before any performance fee (at most MAX_HURDLE_RATE_BPS).
    /// @param depositCap Largest totalAssets that deposits may reach; values >= 2**88 - 1 mean no cap.
    /// @param profitUnlockPeriod Seconds over which a reported profit unlocks linearly.
    /// @param fulfillmentDelay Seconds a redeem request waits before it may be filled (0 for synchronous vaults).
    /// @param feeRecipient Receives fee shares.
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
    /// @param fulfiller FULFILLER_ROLE: fills ERC-7540 redeem requests.
    struct VaultRoles {
        address admin;
        address manager;
        address harvester;
        address guardian;
        address fulfiller;
    }

    /// @notice Emitted when fees are brought to date: `managementFee` and `performanceFee` in assets, paid as
    ///         `feeShares` new shares to `recipient`; `pricePerShareWad` is the price after the fee.
    event FeesAccrued(
        address indexed recipient,
        uint256 managementFee,
        uint256 performanceFee,
        uint256 feeShares,
        uint256 pricePerShareWad
    );

    /// @notice Emitted when `harvester` brings `gain` assets in; `lockedProfit` now unlocks linearly until `unlockEnd`.
    event Reported(address indexed harvester, uint256 gain, uint256 lockedProfit, uint256 unlockEnd);

    /// @notice Emitted when the fee rates are set (at deployment and on changes).
    event FeesUpdated(uint256 managementFeeBps, uint256 performanceFeeBps, uint256 hurdleRateBps);

    /// @notice Emitted when the fee recipient is set.
    event FeeRecipientUpdated(address indexed feeRecipient);

    /// @notice Emitted when the deposit cap is set; 2**256 - 1 means no cap.
    event DepositCapUpdated(uint256 depositCap);

    /// @notice Emitted when the profit unlock period is set.
    event ProfitUnlockPeriodUpdated(uint256 profitUnlockPeriod);

    /// @notice Emitted when the fulfilment delay is set.
    event FulfillmentDelayUpdated(uint256 fulfillmentDelay);

    /// @notice Emitted when the recorded strategy allocations are replaced.
    event AllocationsUpdated(Allocation[] allocations);

    /// @notice Emitted when `account` pauses entries (deposit, mint, report).
    event Paused(address account);

    /// @notice Emitted when `account` lifts the pause.
    event Unpaused(address account);

    /// @notice Emitted when `fulfiller` fills the whole pending request of `controller`: `shares` burnt for `assets`.
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

    /// @notice Thrown when the request of `controller` may be filled only from `readyAt` and it is `nowTime`.
    error FulfillmentNotReady(address controller, uint256 readyAt, uint256 nowTime);

    /// @notice Pauses entries: deposit, mint and report. Exits stay open (redeem, withdraw, requestRedeem,
    ///         fulfilment, claims, share transfers), so holders can always leave.
    /// @dev Only GUARDIAN_ROLE. Reverts VaultIsPaused if already paused.
    function pause() external;

    /// @notice Lifts the pause. Only GUARDIAN_ROLE. Reverts VaultIsNotPaused if not paused.
    function unpause() external;

    /// @notice Brings `gain` assets in from the caller (HARVESTER_ROLE) and locks them: they unlock linearly over
    ///         profitUnlockPeriod, together with whatever was still locked. Fees are brought to date first.
    /// @dev Reverts VaultIsPaused while paused. The caller must have approved the vault for `gain`.
    function report(uint256 gain) external;

    /// @notice Brings fees to date (management for the time since the last accrual, performance above the
    ///         hurdle-adjusted high-water mark) and mints them as shares to the fee recipient. Anyone may call.
    function accrueFees() external;

    /// @notice Replaces the recorded allocations (MANAGER_ROLE). At most MAX_ALLOCATIONS, non-zero distinct ids,
    ///         targets summing to at most 10,000 bps.
    function setAllocations(Allocation[] calldata allocations) external;

    /// @notice Sets the fee recipient (DEFAULT_ADMIN_ROLE). Fees are brought to date for the old recipient first.
    function setFeeRecipient(address recipient) external;

    /// @notice Fills the whole pending redeem request of `controller` (FULFILLER_ROLE) once fulfillmentDelay
    ///         seconds have passed since its latest request, at the price of that moment (convertToAssets, rounded
    ///         down): the shares are burnt and the assets set aside for the controller's claims.
    /// @return assets The assets set aside.
    function fulfillRedeem(address controller) external returns (uint256 assets);

    /// @notice Risk level of the vault.
    function riskLevel() external view returns (RiskLevel);

    /// @notice True when redemption is asynchronous (ERC-7540).
    function isERC7540() external view returns (bool);

    /// @notice Seconds a redeem request waits before it may be filled (0 for synchronous vaults).
    function fulfillmentDelay() external view returns (uint256);

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

    /// @notice Performance fee in basis points of profit above the hurdle-adjusted high-water mark.
    function performanceFeeBps() external view returns (uint256);

    /// @notice Annual hurdle rate in basis points.
    function hurdleRateBps() external view returns (uint256);

    /// @notice Receives fee shares.
    function feeRecipient() external view returns (address);

    /// @notice Timestamp of the last fee accrual.
    function lastFeeAccrual() external view returns (uint256);

    /// @notice High-water mark as assets per share scaled by 1e18 (same virtual-share formula as the
    ///         conversions) and the time it was set; the hurdle grows from that time.
    function highWaterMark() external view returns (uint256 pricePerShareWad, uint256 setAt);

    /// @notice State of profit unlocking: `lockedAtReport` assets locked at the last report at `lastReport`,
    ///         unlocking linearly until `unlockEnd`; `stillLocked` is what remains locked now (rounded down).
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
