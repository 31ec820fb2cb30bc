// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title RouterLazyVault
/// @notice Tests only: answers an ERC-4626 deposit with shares but never takes the assets it was approved for, as a
///         broken or hostile vault a signer might name; the router must not keep the assets it pulled for it.
contract RouterLazyVault {
    /// @notice The asset it claims to take.
    address public immutable asset;

    /// @param asset_ The asset `asset()` reports.
    constructor(address asset_) {
        asset = asset_;
    }

    /// @notice Reports `assets` shares minted and takes nothing.
    /// @param assets Assets it was asked to take.
    /// @return shares Equal to `assets`.
    function deposit(uint256 assets, address) external pure returns (uint256 shares) {
        return assets;
    }
}
