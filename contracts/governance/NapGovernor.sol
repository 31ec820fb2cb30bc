// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Governor} from "@openzeppelin/contracts/governance/Governor.sol";
import {GovernorSettings} from "@openzeppelin/contracts/governance/extensions/GovernorSettings.sol";
import {GovernorCountingSimple} from "@openzeppelin/contracts/governance/extensions/GovernorCountingSimple.sol";
import {GovernorStorage} from "@openzeppelin/contracts/governance/extensions/GovernorStorage.sol";
// solhint-disable-next-line max-line-length
import {GovernorSequentialProposalId} from "@openzeppelin/contracts/governance/extensions/GovernorSequentialProposalId.sol";
import {GovernorVotes} from "@openzeppelin/contracts/governance/extensions/GovernorVotes.sol";
// solhint-disable-next-line max-line-length
import {GovernorVotesQuorumFraction} from "@openzeppelin/contracts/governance/extensions/GovernorVotesQuorumFraction.sol";
import {GovernorTimelockControl} from "@openzeppelin/contracts/governance/extensions/GovernorTimelockControl.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";
import {INapGovernor} from "../interfaces/INapGovernor.sol";

/// @title NapGovernor
/// @notice Governor of the NAP protocol: NAP token votes (timestamp clock, so delay and period are seconds),
///         simple counting (0 against, 1 for, 2 abstain), a quorum fraction of the past total supply, execution
///         through a TimelockController that administers vault and registry parameters, sequential proposal ids
///         and onchain proposal listing (`proposalsPage`).
/// @dev Composition of OpenZeppelin extensions only; the one addition is keeping each description in storage so
///      that a page of proposals is readable in one call. Invariant: proposalCount() == latestProposalId() and the
///      proposal at index i has id i + 1.
contract NapGovernor is
    Governor,
    GovernorSettings,
    GovernorCountingSimple,
    GovernorStorage,
    GovernorSequentialProposalId,
    GovernorVotes,
    GovernorVotesQuorumFraction,
    GovernorTimelockControl,
    INapGovernor
{
    mapping(uint256 proposalId => string) private _descriptions;

    /// @param token The NAP token (ERC-5805 votes, timestamp clock).
    /// @param timelock The timelock that executes proposals and holds the admin roles.
    /// @param votingDelaySeconds Seconds between proposal and snapshot (voting opens after the snapshot).
    /// @param votingPeriodSeconds Seconds votes are accepted.
    /// @param proposalThresholdVotes Votes an account needs to propose.
    /// @param quorumPercent Quorum as a percentage of the total supply at the snapshot.
    constructor(
        IVotes token,
        TimelockController timelock,
        uint48 votingDelaySeconds,
        uint32 votingPeriodSeconds,
        uint256 proposalThresholdVotes,
        uint256 quorumPercent
    )
        Governor("NapGovernor")
        GovernorSettings(votingDelaySeconds, votingPeriodSeconds, proposalThresholdVotes)
        GovernorVotes(token)
        GovernorVotesQuorumFraction(quorumPercent)
        GovernorTimelockControl(timelock)
    {}

    // ---------------------------------------------------------------- listing

    /// @inheritdoc INapGovernor
    function proposalDescription(uint256 proposalId) external view returns (string memory) {
        return _descriptions[proposalId];
    }

    /// @inheritdoc INapGovernor
    function getProposal(uint256 proposalId) external view returns (ProposalView memory) {
        if (proposalSnapshot(proposalId) == 0) revert GovernorNonexistentProposal(proposalId);
        return _proposalView(proposalId);
    }

    /// @inheritdoc INapGovernor
    function proposalsPage(uint256 offset, uint256 limit) external view returns (ProposalView[] memory page) {
        uint256 total = proposalCount();
        if (offset >= total) return new ProposalView[](0);
        uint256 end = total - offset < limit ? total : offset + limit;
        page = new ProposalView[](end - offset);
        for (uint256 i = offset; i < end; ++i) {
            (uint256 proposalId, , , , ) = proposalDetailsAt(i);
            page[i - offset] = _proposalView(proposalId);
        }
    }

    function _proposalView(uint256 proposalId) private view returns (ProposalView memory out) {
        (address[] memory targets, uint256[] memory values, bytes[] memory calldatas, ) = proposalDetails(proposalId);
        (uint256 againstVotes, uint256 forVotes, uint256 abstainVotes) = proposalVotes(proposalId);
        uint256 snapshot = proposalSnapshot(proposalId);
        out.id = proposalId;
        out.proposer = proposalProposer(proposalId);
        out.description = _descriptions[proposalId];
        out.state = state(proposalId);
        out.againstVotes = againstVotes;
        out.forVotes = forVotes;
        out.abstainVotes = abstainVotes;
        out.voteStart = snapshot;
        out.voteEnd = proposalDeadline(proposalId);
        out.eta = proposalEta(proposalId);
        // The past total supply is only defined for timepoints strictly before the current clock.
        out.quorum = snapshot < clock() ? quorum(snapshot) : 0;
        out.targets = targets;
        out.values = values;
        out.calldatas = calldatas;
    }

    // ---------------------------------------------------------------- required overrides

    /// @dev Stores the description after the OpenZeppelin hooks assigned the sequential id and stored the details.
    function _propose(
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        string memory description,
        address proposer
    ) internal override(Governor, GovernorStorage, GovernorSequentialProposalId) returns (uint256 proposalId) {
        proposalId = super._propose(targets, values, calldatas, description, proposer);
        _descriptions[proposalId] = description;
    }

    /// @inheritdoc Governor
    function getProposalId(
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) public view override(Governor, GovernorSequentialProposalId) returns (uint256) {
        return super.getProposalId(targets, values, calldatas, descriptionHash);
    }

    /// @inheritdoc Governor
    function votingDelay() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingDelay();
    }

    /// @inheritdoc Governor
    function votingPeriod() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingPeriod();
    }

    /// @inheritdoc Governor
    function proposalThreshold() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.proposalThreshold();
    }

    /// @inheritdoc Governor
    function quorum(uint256 timepoint) public view override(Governor, GovernorVotesQuorumFraction) returns (uint256) {
        return super.quorum(timepoint);
    }

    /// @inheritdoc Governor
    function state(uint256 proposalId) public view override(Governor, GovernorTimelockControl) returns (ProposalState) {
        return super.state(proposalId);
    }

    /// @inheritdoc Governor
    function proposalNeedsQueuing(
        uint256 proposalId
    ) public view override(Governor, GovernorTimelockControl) returns (bool) {
        return super.proposalNeedsQueuing(proposalId);
    }

    function _queueOperations(
        uint256 proposalId,
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) returns (uint48) {
        return super._queueOperations(proposalId, targets, values, calldatas, descriptionHash);
    }

    function _executeOperations(
        uint256 proposalId,
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) {
        super._executeOperations(proposalId, targets, values, calldatas, descriptionHash);
    }

    function _cancel(
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        bytes32 descriptionHash
    ) internal override(Governor, GovernorTimelockControl) returns (uint256) {
        return super._cancel(targets, values, calldatas, descriptionHash);
    }

    function _executor() internal view override(Governor, GovernorTimelockControl) returns (address) {
        return super._executor();
    }
}
