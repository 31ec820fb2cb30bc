// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {INapVault} from "./INapVault.sol";

/// @title IConfigurableNapVault
/// @notice A NAP vault whose economic parameters governance (DEFAULT_ADMIN_ROLE, the timelock) may change within
///         the same hard bounds the constructor enforces.
interface IConfigurableNapVault is INapVault {
    /// @notice Sets the fee rates after bringing the management fee to date at the old rate. The hurdle already
    ///         earned is kept (the hurdle accumulator is brought to date at the old rate; holders earn it at the new
    ///         one from now on); the new performance fee applies to every fee settled from now on, so holders may
    ///         `settle` at the old one while the change waits in the timelock. Reverts HurdleBeyondManagementFee when
    ///         hurdle * performance > management * 10,000.
    /// @param newManagementFeeBps Annual management fee (at most MAX_MANAGEMENT_FEE_BPS).
    /// @param newPerformanceFeeBps Performance fee (at most MAX_PERFORMANCE_FEE_BPS).
    /// @param newHurdleRateBps Annual hurdle rate (at most MAX_HURDLE_RATE_BPS).
    function setFees(uint16 newManagementFeeBps, uint16 newPerformanceFeeBps, uint16 newHurdleRateBps) external;

    /// @notice Sets the deposit cap: a whole number of tokens, in asset units; values >= (2**32 - 1) tokens mean no
    ///         cap. A cap below totalAssets only stops entries. Reverts DepositCapNotWholeTokens otherwise.
    /// @param newDepositCap Cap on totalAssets, in asset units.
    function setDepositCap(uint256 newDepositCap) external;

    /// @notice Sets the unlock period of future reports; profit already locked keeps its schedule until the next
    ///         report blends it with the new gain.
    /// @param newProfitUnlockPeriod Seconds, within [MIN_PROFIT_UNLOCK_PERIOD, MAX_PROFIT_UNLOCK_PERIOD].
    function setProfitUnlockPeriod(uint32 newProfitUnlockPeriod) external;

    /// @notice Sets the fulfilment delay of requests made from now on; a pending request keeps the ready time it
    ///         was given, so that no one but its controller can delay it.
    /// @param newFulfillmentDelay Seconds, at most MAX_FULFILLMENT_DELAY (0 on a synchronous vault).
    function setFulfillmentDelay(uint32 newFulfillmentDelay) external;
}
