// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title MockUSDC
/// @notice Tests and benchmarks only: a plain OpenZeppelin ERC20 with 6 decimals and open minting, the setup in
///         which the reference ERC4626 figures of TOOLCHAIN.md were measured.
contract MockUSDC is ERC20 {
    constructor() ERC20("USD Coin", "USDC") {}

    /// @notice USDC's 6 decimals.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Creates `amount` units for `to`; anyone may call (test token).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
