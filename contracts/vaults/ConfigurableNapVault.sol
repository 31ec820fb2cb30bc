// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {NapVault} from "./NapVault.sol";
import {IConfigurableNapVault} from "../interfaces/IConfigurableNapVault.sol";

/// @title ConfigurableNapVault
/// @notice A NapVault whose fees, deposit cap, profit unlock period and fulfilment delay governance
///         (DEFAULT_ADMIN_ROLE, the timelock) may change, always within the hard bounds of NapVault.
///         Risk level and sync/async mode stay fixed.
contract ConfigurableNapVault is NapVault, IConfigurableNapVault {
    /// @param params Initial parameters (bounds checked).
    /// @param roles Role holders.
    /// @param initialAllocations Recorded allocation targets.
    constructor(
        VaultParams memory params,
        VaultRoles memory roles,
        Allocation[] memory initialAllocations
    ) NapVault(params, roles, initialAllocations) {}

    /// @inheritdoc IConfigurableNapVault
    function setFees(
        uint16 managementFeeBps_,
        uint16 performanceFeeBps_,
        uint16 hurdleRateBps_
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _accrueFees();
        _setFees(managementFeeBps_, performanceFeeBps_, hurdleRateBps_);
    }

    /// @inheritdoc IConfigurableNapVault
    function setDepositCap(uint256 depositCap_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setDepositCap(depositCap_);
    }

    /// @inheritdoc IConfigurableNapVault
    function setProfitUnlockPeriod(uint32 profitUnlockPeriod_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setProfitUnlockPeriod(profitUnlockPeriod_);
    }

    /// @inheritdoc IConfigurableNapVault
    function setFulfillmentDelay(uint32 fulfillmentDelay_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFulfillmentDelay(fulfillmentDelay_);
    }
}
