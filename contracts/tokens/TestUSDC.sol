// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ITestUSDC} from "../interfaces/ITestUSDC.sol";

/// @title TestUSDC
/// @notice Test USDC: 6 decimals like Circle's token, EIP-2612 permit, and minting only by MINTER_ROLE.
/// @dev Invariant: totalSupply equals the sum of all mints minus the sum of all burns (there is no burn), so it
///      only moves through `mint`. The admin grants MINTER_ROLE (the faucet and the deployer on local chains).
contract TestUSDC is ERC20, ERC20Permit, AccessControl, ITestUSDC {
    /// @notice Role allowed to mint new units.
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    /// @param admin Receives DEFAULT_ADMIN_ROLE and MINTER_ROLE.
    constructor(address admin) ERC20("USD Coin (test)", "USDC") ERC20Permit("USD Coin (test)") {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
    }

    /// @notice USDC has 6 decimals; so does this token, so amounts match the real one unit for unit.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @inheritdoc ITestUSDC
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        if (to == address(0)) revert TestUSDCZeroRecipient();
        if (amount == 0) revert TestUSDCZeroAmount();
        _mint(to, amount);
        emit Minted(msg.sender, to, amount);
    }
}
