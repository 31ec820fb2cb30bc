// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @dev Everything a deposit, mint, withdraw or redeem reads and writes of the vault's own storage, packed in one
///      slot so that the hot path costs one cold SLOAD and, when time has passed, one SSTORE. Bits, low to high:
///
///      | bits     | field            | unit                                                               |
///      |----------|------------------|--------------------------------------------------------------------|
///      | 0..63    | lockedProfit     | asset units locked by the last report                               |
///      | 64..95   | unlockEnd        | timestamp at which that profit has all unlocked                     |
///      | 96..117  | unlockDuration   | seconds of that unlock (at most 30 days < 2**22); start = end - it  |
///      | 118..126 | managementFeeBps | annual basis points (at most 500 < 2**9)                            |
///      | 127      | paused           | entries paused                                                     |
///      | 128..159 | depositCap       | whole tokens (10**assetDecimals units); 2**32 - 1 means no cap      |
///      | 160..223 | accountedAssets  | holders' assets plus profit still locked, as of lastAccrual         |
///      | 224..255 | lastAccrual      | timestamp up to which the management fee is counted                 |
///
///      The vault keeps its own count of the assets it holds for holders (accountedAssets) instead of reading its
///      asset balance: no external call on the hot path, and assets sent to the vault without a deposit or a
///      report count for no holder. Fees leave accountedAssets and stay in the vault until claimed.
///      The two fields every entry, exit and accrual writes sit at the top, so that they are replaced with one mask.
///      Amounts are 64-bit: 1.8e19 units, 18 trillion USDC; deposits and reports that would pass it are refused.
type HotState is uint256;

using HotStateLib for HotState global;

/// @title HotStateLib
/// @notice Getters and setters of the packed HotState; setters return a new value and write nothing. The hot path
///         of the vault (`accrue`, `room`, `stillLocked`) is flat code with plain arithmetic whose bounds are
///         stated where it is unchecked: each internal call costs gas on every deposit and exit.
library HotStateLib {
    /// @notice Largest amount a 64-bit field holds.
    uint256 internal constant MAX_AMOUNT = type(uint64).max;
    /// @notice Stored deposit cap meaning "no cap".
    uint256 internal constant NO_CAP = type(uint32).max;

    uint256 private constant _M64 = type(uint64).max;
    uint256 private constant _M32 = type(uint32).max;
    uint256 private constant _M22 = (1 << 22) - 1;
    uint256 private constant _M9 = (1 << 9) - 1;
    uint256 private constant _KEEP_LOW_160 = type(uint160).max;

    uint256 private constant _UNLOCK_END = 64;
    uint256 private constant _UNLOCK_DURATION = 96;
    uint256 private constant _MANAGEMENT_BPS = 118;
    uint256 private constant _PAUSED = 127;
    uint256 private constant _DEPOSIT_CAP = 128;
    uint256 private constant _ACCOUNTED_ASSETS = 160;
    uint256 private constant _LAST_ACCRUAL = 224;

    /// @notice Profit locked by the last report, in asset units.
    function lockedProfit(HotState s) internal pure returns (uint256) {
        return HotState.unwrap(s) & _M64;
    }

    /// @notice Timestamp at which the profit of the last report has all unlocked.
    function unlockEnd(HotState s) internal pure returns (uint256) {
        return (HotState.unwrap(s) >> _UNLOCK_END) & _M32;
    }

    /// @notice Timestamp of the last report (start of the current unlock).
    function lastReport(HotState s) internal pure returns (uint256) {
        return unlockEnd(s) - ((HotState.unwrap(s) >> _UNLOCK_DURATION) & _M22);
    }

    /// @notice Annual management fee in basis points.
    function managementFeeBps(HotState s) internal pure returns (uint256) {
        return (HotState.unwrap(s) >> _MANAGEMENT_BPS) & _M9;
    }

    /// @notice True while entries are paused.
    function paused(HotState s) internal pure returns (bool) {
        return (HotState.unwrap(s) >> _PAUSED) & 1 == 1;
    }

    /// @notice Deposit cap in whole tokens; NO_CAP means none.
    function depositCap(HotState s) internal pure returns (uint256) {
        return (HotState.unwrap(s) >> _DEPOSIT_CAP) & _M32;
    }

    /// @notice Holders' assets plus profit still locked, as of lastAccrual.
    function accountedAssets(HotState s) internal pure returns (uint256) {
        return (HotState.unwrap(s) >> _ACCOUNTED_ASSETS) & _M64;
    }

    /// @notice Timestamp up to which the management fee is counted.
    function lastAccrual(HotState s) internal pure returns (uint256) {
        return HotState.unwrap(s) >> _LAST_ACCRUAL;
    }

    /// @notice Profit still locked now: lockedProfit * (unlockEnd - now) / unlockDuration, rounded down.
    function stillLocked(HotState s) internal view returns (uint256) {
        uint256 raw = HotState.unwrap(s);
        uint256 end = (raw >> _UNLOCK_END) & _M32;
        if (block.timestamp >= end) return 0;
        // lockedProfit < 2**64 times unlockEnd - now < 2**32 cannot overflow; now < unlockEnd implies a report set
        // a non-zero duration.
        unchecked {
            return ((raw & _M64) * (end - block.timestamp)) / ((raw >> _UNLOCK_DURATION) & _M22);
        }
    }

    /// @notice The management fee brought to date in `s` (nothing written): managementFeeBps a year of the holders'
    ///         assets second by second since lastAccrual. Holders' assets at an instant are accountedAssets less
    ///         the profit still locked then, which falls linearly; so over the interval they integrate exactly to
    ///         accountedAssets * elapsed less the area under the unlock (a trapezoid), rounded in the holders'
    ///         favour. The fee is (bps * that integral + carried) / feeDenominator rounded down, at most the assets,
    ///         and leaves accountedAssets (it stays in the vault for the fee recipient). Charging the end value for
    ///         the whole interval made the fee depend on how often anyone accrued.
    /// @param carried Fraction of a unit, times feeDenominator, left by the previous accrual (< feeDenominator).
    /// @return next `s` with lastAccrual = now and the fee taken out (`s` itself when no time has passed).
    /// @return assets Holders' assets now, after the fee.
    /// @return fee The fee taken.
    /// @return remainder The fraction this accrual leaves (< feeDenominator).
    function accrue(
        HotState s,
        uint256 carried,
        uint256 feeDenominator
    ) internal view returns (HotState next, uint256 assets, uint256 fee, uint256 remainder) {
        uint256 raw = HotState.unwrap(s);
        uint256 accounted = (raw >> _ACCOUNTED_ASSETS) & _M64;
        uint256 end = (raw >> _UNLOCK_END) & _M32;
        uint256 last = raw >> _LAST_ACCRUAL;
        assets = accounted;
        // Asset-seconds of profit locked over [last, now]; this runs on every deposit and exit, so it is inlined.
        uint256 lockedArea = 0;
        if (last < end) {
            unchecked {
                // A report accrues before it starts an unlock, so unlockEnd - unlockDuration <= last < unlockEnd:
                // the duration is non-zero and end - last <= duration < 2**22.
                uint256 duration = (raw >> _UNLOCK_DURATION) & _M22;
                uint256 left = block.timestamp < end ? end - block.timestamp : 0;
                // Profit still locked now (see stillLocked): never more than accountedAssets, which it is part of.
                assets -= ((raw & _M64) * left) / duration;
                // Locked profit falls linearly from lockedProfit * (end - last) / duration to
                // lockedProfit * left / duration over (end - last - left) seconds: the trapezoid, times 2 * duration,
                // is lockedProfit * (end - last - left) * (end - last + left) < 2**64 * 2**22 * 2**23. Rounded up.
                uint256 twice = 2 * duration;
                lockedArea = ((raw & _M64) * (end - last - left) * (end - last + left) + twice - 1) / twice;
            }
        }
        // A difference of block timestamps: equal means "already accrued in this block"; see docs/slither-triage.md.
        // slither-disable-next-line incorrect-equality
        if (block.timestamp == last) return (s, assets, 0, carried);
        unchecked {
            // accounted < 2**64 and elapsed < 2**32. The area locked may pass accounted * elapsed by at most
            // elapsed when the books hold only locked profit (each instant's still-locked profit is rounded down).
            uint256 area = accounted * (block.timestamp - last);
            area = area > lockedArea ? area - lockedArea : 0;
            // area < 2**96, bps < 2**9, carried < 2**39: no overflow.
            uint256 numerator = area * ((raw >> _MANAGEMENT_BPS) & _M9) + carried;
            fee = numerator / feeDenominator;
            // The fraction of a unit carried to the next accrual, not randomness; see docs/slither-triage.md.
            // slither-disable-next-line weak-prng
            remainder = numerator % feeDenominator;
            // Only after about 20 years without an accrual at 5% a year.
            if (fee > assets) (fee, remainder) = (assets, 0);
            assets -= fee;
            next = HotState.wrap(
                (raw & _KEEP_LOW_160) | (((block.timestamp << 64) | (accounted - fee)) << _ACCOUNTED_ASSETS)
            );
        }
    }

    /// @notice Room left for deposits when holders have `assets`: 0 while paused; otherwise the deposit cap less
    ///         `assets` (0 when reached), and never more than keeps accountedAssets within 64 bits.
    /// @param capUnit Asset units of one whole token (the unit of the stored cap).
    function room(HotState s, uint256 assets, uint256 capUnit) internal pure returns (uint256 limit) {
        uint256 raw = HotState.unwrap(s);
        if ((raw >> _PAUSED) & 1 == 1) return 0;
        limit = _M64 - ((raw >> _ACCOUNTED_ASSETS) & _M64);
        uint256 cap = (raw >> _DEPOSIT_CAP) & _M32;
        // A sentinel set only by the constructor or the admin; see docs/slither-triage.md.
        // slither-disable-next-line incorrect-equality
        if (cap == NO_CAP) return limit;
        cap *= capUnit;
        if (cap <= assets) return 0;
        if (cap - assets < limit) limit = cap - assets;
    }

    /// @notice `s` after `assets` entered: accountedAssets grows by them (the caller checked room).
    function withDeposit(HotState s, uint256 assets) internal pure returns (HotState) {
        return HotState.wrap(HotState.unwrap(s) + (assets << _ACCOUNTED_ASSETS));
    }

    /// @notice `s` after `assets` left: accountedAssets shrinks by them (at most the holders' assets).
    function withExit(HotState s, uint256 assets) internal pure returns (HotState) {
        return HotState.wrap(HotState.unwrap(s) - (assets << _ACCOUNTED_ASSETS));
    }

    /// @notice Starts a new unlock of `locked` (< 2**64) from now over `duration` (< 2**22) seconds.
    function withUnlock(HotState s, uint256 locked, uint256 duration) internal view returns (HotState) {
        uint256 cleared = HotState.unwrap(s) & ~(_M64 | (_M32 << _UNLOCK_END) | (_M22 << _UNLOCK_DURATION));
        return
            HotState.wrap(
                cleared | locked | ((block.timestamp + duration) << _UNLOCK_END) | (duration << _UNLOCK_DURATION)
            );
    }

    /// @notice Sets accountedAssets to `accounted` (< 2**64) as of `at`.
    function withAccounted(HotState s, uint256 at, uint256 accounted) internal pure returns (HotState) {
        return HotState.wrap((HotState.unwrap(s) & _KEEP_LOW_160) | (((at << 64) | accounted) << _ACCOUNTED_ASSETS));
    }

    /// @notice Sets the annual management fee (< 2**9 basis points).
    function withManagementFeeBps(HotState s, uint256 bps) internal pure returns (HotState) {
        return HotState.wrap((HotState.unwrap(s) & ~(_M9 << _MANAGEMENT_BPS)) | (bps << _MANAGEMENT_BPS));
    }

    /// @notice Sets or clears the pause flag.
    function withPaused(HotState s, bool isPaused) internal pure returns (HotState) {
        uint256 flag = isPaused ? 1 : 0;
        return HotState.wrap((HotState.unwrap(s) & ~(uint256(1) << _PAUSED)) | (flag << _PAUSED));
    }

    /// @notice Sets the deposit cap in whole tokens (NO_CAP: none).
    function withDepositCap(HotState s, uint256 capTokens) internal pure returns (HotState) {
        return HotState.wrap((HotState.unwrap(s) & ~(_M32 << _DEPOSIT_CAP)) | (capTokens << _DEPOSIT_CAP));
    }
}
