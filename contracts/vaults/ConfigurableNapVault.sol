// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {NapVault} from "./NapVault.sol";
import {IConfigurableNapVault} from "../interfaces/IConfigurableNapVault.sol";

/// @title ConfigurableNapVault
/// @notice A NapVault whose fees, deposit cap, profit unlock period and fulfilment delay governance
///         (DEFAULT_ADMIN_ROLE, the timelock) may change, always within the hard bounds of NapVault.
///         Risk level and sync/async mode stay fixed.
contract ConfigurableNapVault is NapVault, IConfigurableNapVault {
    /// @notice Deploys a configurable vault; see NapVault.
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
        uint16 newManagementFeeBps,
        uint16 newPerformanceFeeBps,
        uint16 newHurdleRateBps
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _accrueFeesAndEmit();
        _setFees(newManagementFeeBps, newPerformanceFeeBps, newHurdleRateBps);
    }

    /// @inheritdoc IConfigurableNapVault
    function setDepositCap(uint256 newDepositCap) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setDepositCap(newDepositCap);
    }

    /// @inheritdoc IConfigurableNapVault
    function setProfitUnlockPeriod(uint32 newProfitUnlockPeriod) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setProfitUnlockPeriod(newProfitUnlockPeriod);
    }

    /// @inheritdoc IConfigurableNapVault
    function setFulfillmentDelay(uint32 newFulfillmentDelay) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setFulfillmentDelay(newFulfillmentDelay);
    }
}
