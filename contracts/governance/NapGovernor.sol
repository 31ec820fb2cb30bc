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
// solhint-disable-next-line max-line-length
import {GovernorProposalGuardian} from "@openzeppelin/contracts/governance/extensions/GovernorProposalGuardian.sol";
import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {INapGovernor} from "../interfaces/INapGovernor.sol";

/// @title NapGovernor
/// @notice Governor of the NAP protocol: NAP token votes (timestamp clock, so delay and period are seconds),
///         simple counting (0 against, 1 for, 2 abstain), a quorum fraction of the past total supply, execution
///         through a TimelockController that administers vault and registry parameters, sequential proposal ids,
///         onchain proposal listing (`proposalsPage`), and a proposal guardian that can cancel any proposal before
///         it executes (OpenZeppelin GovernorProposalGuardian: `cancel(id)` in any state but Canceled, Expired and
///         Executed; a queued proposal's timelock operation is cancelled with it).
/// @dev Composition of OpenZeppelin extensions; the additions are keeping each description in storage so that a
///      page of proposals is readable in one call, and bounds on a proposal's size so that such a page stays far
///      below an RPC's `eth_call` gas cap (the page leaves out call values and calldata, read one proposal at a
///      time with `getProposal`). Invariants: proposalCount() == latestProposalId() and the proposal at index i has
///      id i + 1; every stored proposal is within MAX_DESCRIPTION_BYTES and MAX_ACTIONS. The guardian is a cold key
///      or multisig set by governance (`setProposalGuardian`, only through a proposal): it can stop proposals, never
///      make one pass. Guardian changes are exempt from every cancel (`isGuardianChange`): a proposal whose every
///      call, with no value, is `setProposalGuardian(a)` on this governor or `revokeRole(GUARDIAN_ROLE, a)` on any
///      contract cannot be cancelled by anyone, so the guardian cannot veto its own replacement or keep a guardian
///      role, and copying such a proposal to cancel it as its proposer gains nothing. The timelock's own `cancel` is
///      no way around this: only this governor holds the timelock's CANCELLER_ROLE, and it cancels through here.
contract NapGovernor is
    Governor,
    GovernorSettings,
    GovernorCountingSimple,
    GovernorStorage,
    GovernorSequentialProposalId,
    GovernorVotes,
    GovernorVotesQuorumFraction,
    GovernorTimelockControl,
    GovernorProposalGuardian,
    INapGovernor
{
    /// @notice Longest proposal description, in bytes.
    uint256 public constant MAX_DESCRIPTION_BYTES = 2_000;
    /// @notice Most calls in one proposal.
    uint256 public constant MAX_ACTIONS = 10;

    /// @dev The role id the NAP vaults and the registry give their guardians.
    bytes32 private constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    mapping(uint256 proposalId => string) private _descriptions;
    /// @dev The call targets again (GovernorStorage keeps them with the calldata), so a page reads them alone.
    mapping(uint256 proposalId => address[]) private _targets;

    /// @param token The NAP token (ERC-5805 votes, timestamp clock).
    /// @param timelock The timelock that executes proposals and holds the admin roles.
    /// @param votingDelaySeconds Seconds between proposal and snapshot (voting opens after the snapshot).
    /// @param votingPeriodSeconds Seconds votes are accepted.
    /// @param proposalThresholdVotes Votes an account needs to propose.
    /// @param quorumPercent Quorum as a percentage of the total supply at the snapshot.
    /// @param guardian The proposal guardian (zero: none, and each proposer may cancel its own proposals instead).
    constructor(
        IVotes token,
        TimelockController timelock,
        uint48 votingDelaySeconds,
        uint32 votingPeriodSeconds,
        uint256 proposalThresholdVotes,
        uint256 quorumPercent,
        address guardian
    )
        Governor("NapGovernor")
        GovernorSettings(votingDelaySeconds, votingPeriodSeconds, proposalThresholdVotes)
        GovernorVotes(token)
        GovernorVotesQuorumFraction(quorumPercent)
        GovernorTimelockControl(timelock)
    {
        _setProposalGuardian(guardian);
    }

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
    function proposalsPage(uint256 offset, uint256 limit) external view returns (ProposalSummary[] memory page) {
        uint256 total = proposalCount();
        if (offset >= total) return new ProposalSummary[](0);
        uint256 end = total - offset < limit ? total : offset + limit;
        page = new ProposalSummary[](end - offset);
        // Sequential ids: the proposal at index i has id i + 1.
        for (uint256 i = offset; i < end; ++i) {
            page[i - offset] = _summary(i + 1);
        }
    }

    /// @dev What a listing shows: everything but the call values and calldata, whose size the page must not pay for.
    function _summary(uint256 proposalId) private view returns (ProposalSummary memory out) {
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
        out.targets = _targets[proposalId];
    }

    function _proposalView(uint256 proposalId) private view returns (ProposalView memory out) {
        ProposalSummary memory summary = _summary(proposalId);
        (, uint256[] memory values, bytes[] memory calldatas, ) = proposalDetails(proposalId);
        out.id = summary.id;
        out.proposer = summary.proposer;
        out.description = summary.description;
        out.state = summary.state;
        out.againstVotes = summary.againstVotes;
        out.forVotes = summary.forVotes;
        out.abstainVotes = summary.abstainVotes;
        out.voteStart = summary.voteStart;
        out.voteEnd = summary.voteEnd;
        out.eta = summary.eta;
        out.quorum = summary.quorum;
        out.targets = summary.targets;
        out.values = values;
        out.calldatas = calldatas;
    }

    /// @inheritdoc INapGovernor
    function isGuardianChange(uint256 proposalId) public view returns (bool) {
        (address[] memory targets, uint256[] memory values, bytes[] memory calldatas, ) = proposalDetails(proposalId);
        for (uint256 i = 0; i < targets.length; ++i) {
            bytes memory data = calldatas[i];
            if (values[i] != 0) return false;
            // With 28 zero bytes in front, the selector is the low end of the first word and each argument a word.
            bytes memory words = bytes.concat(new bytes(28), data);
            bool guardianSet = false;
            bool guardianRevoked = false;
            if (data.length == 36 && targets[i] == address(this)) {
                (uint256 selector, uint256 account) = abi.decode(words, (uint256, uint256));
                guardianSet = selector == uint32(this.setProposalGuardian.selector) && account >> 160 == 0;
            } else if (data.length == 68) {
                (uint256 selector, bytes32 role, uint256 account) = abi.decode(words, (uint256, bytes32, uint256));
                guardianRevoked =
                    selector == uint32(IAccessControl.revokeRole.selector) &&
                    role == GUARDIAN_ROLE &&
                    account >> 160 == 0;
            }
            if (!guardianSet && !guardianRevoked) return false;
        }
        return targets.length != 0;
    }

    // ---------------------------------------------------------------- required overrides

    /// @dev Checks the size bounds, then stores the description and targets after the OpenZeppelin hooks assigned
    ///      the sequential id and stored the details.
    function _propose(
        address[] memory targets,
        uint256[] memory values,
        bytes[] memory calldatas,
        string memory description,
        address proposer
    ) internal override(Governor, GovernorStorage, GovernorSequentialProposalId) returns (uint256 proposalId) {
        uint256 descriptionBytes = bytes(description).length;
        if (descriptionBytes > MAX_DESCRIPTION_BYTES) {
            revert NapGovernorDescriptionTooLong(descriptionBytes, MAX_DESCRIPTION_BYTES);
        }
        if (targets.length > MAX_ACTIONS) revert NapGovernorTooManyActions(targets.length, MAX_ACTIONS);
        proposalId = super._propose(targets, values, calldatas, description, proposer);
        _descriptions[proposalId] = description;
        _targets[proposalId] = targets;
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

    function _validateCancel(
        uint256 proposalId,
        address caller
    ) internal view override(Governor, GovernorProposalGuardian) returns (bool) {
        // Checked before the guardian's and the proposer's rights, so that neither can stop a guardian change.
        if (isGuardianChange(proposalId)) revert NapGovernorGuardianChangeNotCancellable(proposalId);
        return super._validateCancel(proposalId, caller);
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
