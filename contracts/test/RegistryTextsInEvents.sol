// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IStrategyRegistryV3} from "../interfaces/IStrategyRegistryV3.sol";

/// @title RegistryTextsInEvents
/// @notice Benchmark helper: the alternative design of StrategyRegistryV3's submission that keeps only a hash of the
///         texts in storage and the texts themselves in the event. Same id, same header, DNA and risk slots, same
///         owner index and same event, so that the gas difference is the cost of keeping the texts in storage.
contract RegistryTextsInEvents {
    struct Record {
        address owner;
        uint8 status;
        uint8 pausedFrom;
        uint40 createdAt;
        uint40 lastStatusChange;
        bytes32 dna;
        uint256 packedRisk;
        bytes32 textHash;
    }

    mapping(bytes32 strategyId => Record) private _records;
    mapping(address owner => bytes32[]) private _idsOf;

    /// @notice Records a strategy like StrategyRegistryV3.submit (without bound checks), texts as a hash only.
    function submit(
        string calldata name,
        string calldata description,
        bytes32 dna,
        IStrategyRegistryV3.RiskParams calldata params
    ) external returns (bytes32 strategyId) {
        bytes32[] storage ids = _idsOf[msg.sender];
        strategyId = keccak256(abi.encode(block.chainid, address(this), msg.sender, ids.length, dna));
        ids.push(strategyId);
        Record storage record = _records[strategyId];
        record.owner = msg.sender;
        record.createdAt = uint40(block.timestamp);
        record.lastStatusChange = uint40(block.timestamp);
        record.dna = dna;
        record.packedRisk =
            params.maxPositionSizePercent |
            (params.maxLeverage << 8) |
            (params.stopLossPercent << 24) |
            (params.slippageToleranceBps << 40) |
            (params.correlationThreshold << 56) |
            ((params.flashLoansEnabled ? 1 : 0) << 64) |
            (params.velocityLimit << 72);
        record.textHash = keccak256(abi.encode(name, description));
        emit IStrategyRegistryV3.StrategySubmitted(
            strategyId,
            msg.sender,
            dna,
            name,
            description,
            params,
            block.timestamp
        );
    }
}
