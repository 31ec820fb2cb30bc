// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {INapVault} from "./INapVault.sol";

/// @title IConfigurableNapVault
/// @notice A NAP vault whose economic parameters governance (DEFAULT_ADMIN_ROLE, the timelock) may change within
///         the same hard bounds the constructor enforces.
interface IConfigurableNapVault is INapVault {
    /// @notice Sets the fee rates after bringing fees to date at the old rates.
    function setFees(uint16 managementFeeBps, uint16 performanceFeeBps, uint16 hurdleRateBps) external;

    /// @notice Sets the deposit cap (values >= 2**88 - 1 mean no cap). A cap below totalAssets only stops entries.
    function setDepositCap(uint256 depositCap) external;

    /// @notice Sets the unlock period of future reports; profit already locked keeps its schedule.
    function setProfitUnlockPeriod(uint32 profitUnlockPeriod) external;

    /// @notice Sets the fulfilment delay; it applies to every pending request from now on.
    function setFulfillmentDelay(uint32 fulfillmentDelay) external;
}
