// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title EtherRejecter
/// @notice Test helper: a contract whose receive hook always reverts, to exercise failed ETH transfers.
contract EtherRejecter {
    error EtherRejected();

    receive() external payable {
        revert EtherRejected();
    }
}
