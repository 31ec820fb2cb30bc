// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IGovernor} from "@openzeppelin/contracts/governance/IGovernor.sol";

/// @title INapGovernor
/// @notice What the NAP governor adds to OpenZeppelin's Governor: proposal ids are sequential (1, 2, 3...), and
///         proposals can be listed onchain, page by page, with their description, state, tallies and voting window,
///         so that the API serves `GET /api/v1/proposals` without an indexer. A proposal's size is bounded
///         (description bytes, number of calls) and a page leaves out call values and calldata, so that a page of 50
///         stays far below an `eth_call` gas cap.
interface INapGovernor {
    /// @notice One proposal as the API lists it.
    /// @param id Sequential proposal id (1-based).
    /// @param proposer Account that proposed.
    /// @param description Full description text.
    /// @param state Governor state (0 Pending, 1 Active, 2 Canceled, 3 Defeated, 4 Succeeded, 5 Queued, 6 Expired,
    ///        7 Executed).
    /// @param againstVotes Votes against (support 0).
    /// @param forVotes Votes for (support 1).
    /// @param abstainVotes Abstentions (support 2).
    /// @param voteStart Snapshot timestamp: voting opens just after it.
    /// @param voteEnd Deadline timestamp: voting closes after it.
    /// @param eta Timestamp from which a queued proposal can be executed (0 if not queued).
    /// @param quorum Votes needed (for + abstain); 0 while the snapshot is not yet in the past.
    /// @param targets Call targets.
    /// @param values Call values (wei).
    /// @param calldatas Call data.
    struct ProposalView {
        uint256 id;
        address proposer;
        string description;
        IGovernor.ProposalState state;
        uint256 againstVotes;
        uint256 forVotes;
        uint256 abstainVotes;
        uint256 voteStart;
        uint256 voteEnd;
        uint256 eta;
        uint256 quorum;
        address[] targets;
        uint256[] values;
        bytes[] calldatas;
    }

    /// @notice Thrown when a proposal's description has `length` bytes, more than `max`.
    error NapGovernorDescriptionTooLong(uint256 length, uint256 max);

    /// @notice Thrown when a proposal has `count` calls, more than `max`.
    error NapGovernorTooManyActions(uint256 count, uint256 max);

    /// @notice Thrown when anyone (the proposal guardian or the proposer included) tries to cancel proposal
    ///         `proposalId`, a guardian change (`isGuardianChange`).
    error NapGovernorGuardianChangeNotCancellable(uint256 proposalId);

    /// @notice One proposal as a page lists it: `ProposalView` without the call values and calldata.
    struct ProposalSummary {
        uint256 id;
        address proposer;
        string description;
        IGovernor.ProposalState state;
        uint256 againstVotes;
        uint256 forVotes;
        uint256 abstainVotes;
        uint256 voteStart;
        uint256 voteEnd;
        uint256 eta;
        uint256 quorum;
        address[] targets;
    }

    /// @notice Description text of proposal `proposalId` (empty for an unknown id).
    function proposalDescription(uint256 proposalId) external view returns (string memory);

    /// @notice One proposal; reverts with `GovernorNonexistentProposal` for an unknown id.
    function getProposal(uint256 proposalId) external view returns (ProposalView memory);

    /// @notice Whether proposal `proposalId` only changes guardians, which nobody can cancel: each of its calls
    ///         sends no value and is either `setProposalGuardian(account)` on this governor or
    ///         `revokeRole(keccak256("GUARDIAN_ROLE"), account)` on any contract (the vaults' and the registry's
    ///         guardian role), with exactly those arguments. Reverts `GovernorNonexistentProposal` for an unknown id.
    function isGuardianChange(uint256 proposalId) external view returns (bool);

    /// @notice Proposals in creation order from index `offset` (0-based; proposal id = index + 1), at most `limit`,
    ///         without their call values and calldata (`getProposal` has them).
    function proposalsPage(uint256 offset, uint256 limit) external view returns (ProposalSummary[] memory);
}
