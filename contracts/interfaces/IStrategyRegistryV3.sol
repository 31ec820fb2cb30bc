// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IStrategyRegistryV3
/// @notice Onchain registry of agent trading strategies: submission with bounded risk parameters, and a lifecycle
///         moved by roles (screening bot, guardians, manager, oracles) through a fixed transition table.
/// @dev Transition table (every other move reverts with `StrategyIllegalTransition(id, from, to)`):
///
///      | from                    | to                      | caller        | function, condition                  |
///      |-------------------------|-------------------------|---------------|--------------------------------------|
///      | (none)                  | shadow                  | anyone        | submit (owner = msg.sender)          |
///      | shadow                  | guardian_review         | SCREENER_ROLE | passScreening                        |
///      | shadow                  | deprecated              | SCREENER_ROLE | failScreening                        |
///      | guardian_review         | paper_trading           | GUARDIAN_ROLE | guardianVote(true): k-th approval    |
///      | guardian_review         | deprecated              | GUARDIAN_ROLE | guardianVote(false): k-th rejection  |
///      | paper_trading           | pending_oracle_approval | MANAGER_ROLE  | completePaperTrading, at least       |
///      |                         |                         |               | minPaperTradingPeriod spent in       |
///      |                         |                         |               | paper_trading (paused time excluded) |
///      | pending_oracle_approval | live                    | ORACLE_ROLE   | oracleVote(true): k-th approval      |
///      | pending_oracle_approval | deprecated              | ORACLE_ROLE   | oracleVote(false): k-th rejection    |
///      | guardian_review or      | paper_trading / live or | anyone        | settleReview: the current tally      |
///      | pending_oracle_approval | deprecated (or a new    |               | decides, or no outcome is reachable  |
///      |                         | round, same state)      |               | (new round)                          |
///      | any active state (*)    | paused                  | GUARDIAN_ROLE | pause (circuit breaker, one key)     |
///      | paused                  | the state it paused in  | GUARDIAN_ROLE | resume: by the pauser alone, or the  |
///      |                         |                         |               | k-th resume vote of the others       |
///      | any but deprecated      | deprecated              | GUARDIAN_ROLE | deprecate: the k-th deprecation vote |
///      | deprecated              | -                       | -             | terminal                             |
///
///      (*) active: shadow, guardian_review, paper_trading, pending_oracle_approval, live.
///      Votes: k is `guardianThreshold` / `oracleThreshold`, read when the tally is counted. A tally counts only the
///      ballots of the current round cast by CURRENT holders of the role: revoking or renouncing the role removes
///      the holder's ballot from every open tally at once (and re-granting it brings the ballot back). After every
///      vote (and on `settleReview`) the tally is applied: k rejections deprecate (rejections are checked first;
///      both sides reach k only after the threshold was lowered), k approvals advance; if neither side can reach k
///      even with the votes of every holder who has not voted in the round, the review is reset: the round number
///      goes up, every ballot of the old round stops counting, and every holder may vote again (event
///      `ReviewReset`). Each holder votes once per round; ballots cast before a pause stay counted after resume.
///      Guardian motions: `deprecate` and `resume` (of a pause by another guardian) are votes; k = `guardianThreshold`
///      current guardians carry them, counted like the review (current holders only, one vote each). A deprecation
///      vote counts while the strategy stays in the lifecycle state it was cast in (a paused strategy is in the
///      state it paused in); a resume vote counts only in the pause it was cast in. Paper trading: the period is the
///      time spent in paper_trading, summed over stays; paused time neither counts nor restarts it.
///      Invariants: `createdAt` never changes after submission; `lastStatusChange` equals the timestamp of the last
///      `StrategyStatusChanged` event of the strategy (or `createdAt` before the first one); a deprecated strategy
///      never changes again; a paused strategy always remembers a non-paused, non-deprecated state to resume to.
interface IStrategyRegistryV3 {
    /// @notice Lifecycle states, in the onchain order shared with the API (0 = Shadow ... 6 = Deprecated).
    enum Status {
        Shadow,
        GuardianReview,
        PaperTrading,
        PendingOracleApproval,
        Live,
        Paused,
        Deprecated
    }

    /// @notice The seven risk parameters of the live API, in its units.
    /// @param maxPositionSizePercent Percent of AUM, 1-100.
    /// @param maxLeverage 100 = 1x, 100-1000.
    /// @param stopLossPercent Basis points, 50-5000.
    /// @param slippageToleranceBps Basis points, 1-1000.
    /// @param correlationThreshold 70 = 0.7, 0-100.
    /// @param velocityLimit Maximum capital movement per period in USDC base units, at least 1000 (and at most
    ///        2^184 - 1, the width it is stored in).
    /// @param flashLoansEnabled Whether flash loans are permitted.
    struct RiskParams {
        uint256 maxPositionSizePercent;
        uint256 maxLeverage;
        uint256 stopLossPercent;
        uint256 slippageToleranceBps;
        uint256 correlationThreshold;
        uint256 velocityLimit;
        bool flashLoansEnabled;
    }

    /// @notice Everything the API shows about one strategy, read in one call.
    /// @dev `pausedFrom` is the state a paused strategy resumes to; outside `Paused` it holds the state of the last
    ///      pause (Shadow if never paused) and means nothing. Timestamps are Unix seconds. Vote counts are those of
    ///      the current round of the guardian review and of the oracle approval, counted over the current holders
    ///      of each role at the time of the read (so they also change after a decision if a voter leaves the role).
    struct StrategyView {
        bytes32 id;
        address owner;
        string name;
        string description;
        bytes32 dna;
        Status status;
        Status pausedFrom;
        uint256 createdAt;
        uint256 lastStatusChange;
        RiskParams params;
        uint256 guardianApprovals;
        uint256 guardianRejections;
        uint256 oracleApprovals;
        uint256 oracleRejections;
    }

    /// @notice Emitted once per submission, with every field the API and the data API index.
    event StrategySubmitted(
        bytes32 indexed strategyId,
        address indexed owner,
        bytes32 indexed dna,
        string name,
        string description,
        RiskParams params,
        uint256 createdAt
    );

    /// @notice Emitted on every lifecycle move; `at` is the new `lastStatusChange`.
    event StrategyStatusChanged(
        bytes32 indexed strategyId,
        Status indexed from,
        Status indexed to,
        address by,
        uint256 at
    );

    /// @notice Emitted when a guardian votes on a strategy in guardian_review, with the tallies after the vote.
    event GuardianVoteCast(
        bytes32 indexed strategyId,
        address indexed guardian,
        bool approve,
        uint256 approvals,
        uint256 rejections
    );

    /// @notice Emitted when an oracle votes on a strategy in pending_oracle_approval, with the tallies after the vote.
    event OracleVoteCast(
        bytes32 indexed strategyId,
        address indexed oracle,
        bool approve,
        uint256 approvals,
        uint256 rejections
    );

    /// @notice Emitted when no outcome of a review stage (`stage`: guardian_review or pending_oracle_approval) can
    ///         reach its threshold any more: ballots of earlier rounds stop counting and `round` starts, with the
    ///         tally that was stuck (`approvals`, `rejections` of current holders).
    event ReviewReset(
        bytes32 indexed strategyId,
        Status indexed stage,
        uint256 round,
        uint256 approvals,
        uint256 rejections
    );

    /// @notice Emitted when a guardian votes to deprecate a strategy; `votes` counts the current guardians who have,
    ///         in the strategy's lifecycle state (the k-th vote also emits the move to deprecated).
    event DeprecationVoteCast(bytes32 indexed strategyId, address indexed guardian, uint256 votes);

    /// @notice Emitted when a guardian other than the pauser votes to resume a paused strategy; `votes` counts the
    ///         current guardians who have in this pause (the k-th vote also emits the move out of paused).
    event ResumeVoteCast(bytes32 indexed strategyId, address indexed guardian, uint256 votes);

    /// @notice Emitted when the admin changes the number of guardian votes that decide a review.
    event GuardianThresholdSet(uint256 previous, uint256 current);

    /// @notice Emitted when the admin changes the number of oracle votes that decide an approval.
    event OracleThresholdSet(uint256 previous, uint256 current);

    /// @notice Emitted when the admin changes the minimum paper-trading period (seconds).
    event MinPaperTradingPeriodSet(uint256 previous, uint256 current);

    /// @notice Thrown when a text field (`"name"` or `"description"`) has a byte length outside [min, max].
    error StrategyTextLengthOutOfBounds(string field, uint256 length, uint256 min, uint256 max);

    /// @notice Thrown when a risk parameter (named as in the API, e.g. `"max_leverage"`) is outside [min, max].
    error StrategyRiskParamOutOfBounds(string param, uint256 value, uint256 min, uint256 max);

    /// @notice Thrown when no strategy has id `strategyId`.
    error StrategyUnknown(bytes32 strategyId);

    /// @notice Thrown when a move from `from` to `to` is not in the transition table for the caller's function.
    error StrategyIllegalTransition(bytes32 strategyId, Status from, Status to);

    /// @notice Thrown when `voter` has already voted on `strategyId` in the current round of the review, or in the
    ///         open deprecation or resume motion (unless the motion has k votes by now, when the call carries it).
    error StrategyAlreadyVoted(bytes32 strategyId, address voter);

    /// @notice Thrown by `settleReview` when the tally neither decides nor is stuck: `outstanding` current holders
    ///         have not voted and `threshold` votes of one kind decide.
    error StrategyReviewUndecided(
        bytes32 strategyId,
        uint256 approvals,
        uint256 rejections,
        uint256 outstanding,
        uint256 threshold
    );

    /// @notice Thrown by `settleReview` for a strategy in `status`, neither guardian_review nor
    ///         pending_oracle_approval.
    error StrategyNotInReview(bytes32 strategyId, Status status);

    /// @notice Thrown when paper trading is completed before `readyAt` (now is `nowTs`).
    error StrategyPaperTradingTooShort(bytes32 strategyId, uint256 readyAt, uint256 nowTs);

    /// @notice Thrown when the admin sets a vote threshold outside [min, max].
    error StrategyThresholdOutOfBounds(uint256 value, uint256 min, uint256 max);

    /// @notice Thrown when the admin sets a minimum paper-trading period above `max` seconds.
    error StrategyPeriodOutOfBounds(uint256 value, uint256 max);

    /// @notice Records a new strategy owned by msg.sender in state shadow.
    /// @dev Bounds: name 3-100 bytes, description 10-2000 bytes, and the risk bounds of `RiskParams`.
    /// @param name Strategy name (UTF-8, byte length counted).
    /// @param description Strategy description (UTF-8, byte length counted).
    /// @param dna 32-byte strategy DNA chosen by the submitter (not required to be unique).
    /// @param params Risk parameters.
    /// @return strategyId keccak256(chainid, registry, owner, owner's strategy count before this one, dna): unique.
    function submit(
        string calldata name,
        string calldata description,
        bytes32 dna,
        RiskParams calldata params
    ) external returns (bytes32 strategyId);

    /// @notice Screening passed: shadow -> guardian_review. SCREENER_ROLE only.
    function passScreening(bytes32 strategyId) external;

    /// @notice Screening failed: shadow -> deprecated. SCREENER_ROLE only.
    function failScreening(bytes32 strategyId) external;

    /// @notice A guardian's vote in guardian_review; k approvals of current guardians move to paper_trading, k
    ///         rejections to deprecated, a tally no side can complete starts a new round. GUARDIAN_ROLE only, one vote
    ///         per guardian per round.
    function guardianVote(bytes32 strategyId, bool approve) external;

    /// @notice Ends paper trading: paper_trading -> pending_oracle_approval, once the strategy has spent
    ///         `minPaperTradingPeriod` seconds in paper_trading, summed over its stays (paused time excluded).
    ///         MANAGER_ROLE only.
    function completePaperTrading(bytes32 strategyId) external;

    /// @notice An oracle's vote in pending_oracle_approval; k approvals of current oracles make it live, k
    ///         rejections deprecate it, a tally no side can complete starts a new round. ORACLE_ROLE only, one vote
    ///         per oracle per round.
    function oracleVote(bytes32 strategyId, bool approve) external;

    /// @notice Applies the current tally of a review (guardian_review or pending_oracle_approval) after role changes
    ///         or a threshold change: decides it if one side has k votes of current holders, or starts a new round
    ///         if neither side can reach k. Anyone may call it. Reverts `StrategyReviewUndecided` if neither applies,
    ///         `StrategyNotInReview` outside the two review states.
    function settleReview(bytes32 strategyId) external;

    /// @notice Circuit breaker: any active state -> paused, remembering the state and the pauser. One guardian
    ///         suffices. GUARDIAN_ROLE only.
    function pause(bytes32 strategyId) external;

    /// @notice paused -> the state it was paused in: at once when called by the guardian who paused it, else a vote
    ///         (`ResumeVoteCast`) that resumes once k current guardians have voted in this pause. GUARDIAN_ROLE only.
    function resume(bytes32 strategyId) external;

    /// @notice A vote (`DeprecationVoteCast`) to move any state but deprecated to deprecated (terminal); the k-th
    ///         vote of current guardians in the strategy's lifecycle state deprecates it. GUARDIAN_ROLE only.
    function deprecate(bytes32 strategyId) external;

    /// @notice Sets k for guardian reviews, 1-32. DEFAULT_ADMIN_ROLE (the timelock) only.
    function setGuardianThreshold(uint256 threshold) external;

    /// @notice Sets k for oracle approvals, 1-32. DEFAULT_ADMIN_ROLE (the timelock) only.
    function setOracleThreshold(uint256 threshold) external;

    /// @notice Sets the minimum paper-trading period in seconds, at most 365 days. DEFAULT_ADMIN_ROLE only.
    function setMinPaperTradingPeriod(uint256 period) external;

    /// @notice Number of guardian votes (of one kind) that decides a review.
    function guardianThreshold() external view returns (uint256);

    /// @notice Number of oracle votes (of one kind) that decides an approval.
    function oracleThreshold() external view returns (uint256);

    /// @notice Minimum seconds in paper_trading before `completePaperTrading`.
    function minPaperTradingPeriod() external view returns (uint256);

    /// @notice One strategy by id. Reverts with `StrategyUnknown` for an unknown id.
    function getStrategy(bytes32 strategyId) external view returns (StrategyView memory);

    /// @notice Number of strategies `owner` has submitted.
    function strategyCountOf(address owner) external view returns (uint256);

    /// @notice Strategies of `owner` in submission order, from index `offset`, at most `limit` of them (fewer at
    ///         the end; empty when `offset` is past the end).
    function strategiesOf(address owner, uint256 offset, uint256 limit) external view returns (StrategyView[] memory);

    /// @notice Ids of `owner`'s strategies in submission order, paginated like `strategiesOf`.
    function strategyIdsOf(address owner, uint256 offset, uint256 limit) external view returns (bytes32[] memory);

    /// @notice The vote `voter` cast as guardian on `strategyId` in the current round: 0 none, 1 approve, 2 reject
    ///         (whether it counts also depends on `voter` holding GUARDIAN_ROLE now).
    function guardianVoteOf(bytes32 strategyId, address voter) external view returns (uint8);

    /// @notice The vote `voter` cast as oracle on `strategyId` in the current round: 0 none, 1 approve, 2 reject
    ///         (whether it counts also depends on `voter` holding ORACLE_ROLE now).
    function oracleVoteOf(bytes32 strategyId, address voter) external view returns (uint8);

    /// @notice Current round of the guardian review and of the oracle approval of `strategyId` (0 until a reset).
    function reviewRounds(bytes32 strategyId) external view returns (uint256 guardianRound, uint256 oracleRound);

    /// @notice Open guardian motions on `strategyId`: current guardians who voted to deprecate it in its lifecycle
    ///         state, current guardians who voted to resume it in this pause (0 unless paused), and the guardian of
    ///         the last pause (the one who may resume it alone while it is paused; zero if never paused).
    function guardianMotions(
        bytes32 strategyId
    ) external view returns (uint256 deprecationVotes, uint256 resumeVotes, address pausedBy);

    /// @notice Whether `guardian` has voted to deprecate `strategyId` in its current lifecycle state (it counts only
    ///         while `guardian` holds GUARDIAN_ROLE).
    function deprecationVoteOf(bytes32 strategyId, address guardian) external view returns (bool);

    /// @notice Whether `guardian` has voted to resume `strategyId` in its current pause (false when not paused).
    function resumeVoteOf(bytes32 strategyId, address guardian) external view returns (bool);

    /// @notice Seconds `strategyId` has spent in paper_trading, summed over its stays (paused time excluded); after
    ///         it leaves paper_trading for good, the total it traded.
    function paperTradingTime(bytes32 strategyId) external view returns (uint256);
}
