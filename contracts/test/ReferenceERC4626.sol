// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";

/// @title ReferenceERC4626
/// @notice Benchmark reference only: OpenZeppelin 5's plain ERC4626 with a decimals offset of 6, nothing else.
contract ReferenceERC4626 is ERC4626 {
    /// @param asset_ The underlying token.
    constructor(IERC20 asset_) ERC20("Reference Vault", "REF") ERC4626(asset_) {}

    function _decimalsOffset() internal pure override returns (uint8) {
        return 6;
    }
}
