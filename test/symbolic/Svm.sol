// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice The few cheatcodes of halmos (svm) and of the Foundry VM (hevm address) the symbolic tests use; forge-std
///         is not vendored.
interface Svm {
    function createUint256(string calldata name) external pure returns (uint256);
    function createUint(uint256 bits, string calldata name) external pure returns (uint256);
    function createAddress(string calldata name) external pure returns (address);
    function createBool(string calldata name) external pure returns (bool);
}

interface Vm {
    function assume(bool condition) external pure;
    function warp(uint256 timestamp) external;
    function store(address target, bytes32 slot, bytes32 value) external;
    function load(address target, bytes32 slot) external view returns (bytes32);
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
}

/// @notice Base of the symbolic tests: the cheatcode handles and a few helpers.
abstract contract SymTest {
    Svm internal constant svm = Svm(0xF3993A62377BCd56AE39D773740A5390411E8BC9);
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
}
