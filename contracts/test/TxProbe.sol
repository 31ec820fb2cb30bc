// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TxProbe
/// @notice Test helper for the API's transaction engine: counts calls per tag so that tests can prove each intent
///         ran exactly once onchain, and reverts with a valued custom error on demand.
/// @dev Only for tests and benchmarks; never deployed outside local chains.
contract TxProbe {
    /// @notice Number of successful `hit` calls per tag.
    mapping(bytes32 tag => uint256 count) public hits;

    /// @notice Number of successful `hit` calls per sender.
    mapping(address sender => uint256 count) public hitsBy;

    /// @notice Number of successful `hit` calls in total.
    uint256 public totalHits;

    /// @notice Emitted on every successful `hit`; `count` is the tag's count after this call.
    event Hit(address indexed sender, bytes32 indexed tag, uint256 count);

    /// @notice Thrown by `fail` with the caller and the value it was given.
    error TxProbeRejected(address sender, uint256 value, string reason);

    /// @notice Counts one call for `tag` and for the sender.
    /// @param tag Any label; tests use one per intent.
    function hit(bytes32 tag) external {
        uint256 count = ++hits[tag];
        ++hitsBy[msg.sender];
        ++totalHits;
        emit Hit(msg.sender, tag, count);
    }

    /// @notice Always reverts with `TxProbeRejected(msg.sender, value, "asked to fail")`.
    /// @param value Echoed in the error so that tests can check decoded values.
    function fail(uint256 value) external view {
        revert TxProbeRejected(msg.sender, value, "asked to fail");
    }
}
