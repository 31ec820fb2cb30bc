// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControlEnumerable} from "@openzeppelin/contracts/access/extensions/AccessControlEnumerable.sol";
import {IStrategyRegistryV3} from "../interfaces/IStrategyRegistryV3.sol";

/// @title StrategyRegistryV3
/// @notice Records agents' strategies and moves them through the lifecycle of `IStrategyRegistryV3` (see the
///         transition table there). Texts are kept in storage so that the API lists an owner's strategies with one
///         `eth_call` and no indexer or log-range queries (gas figures and the trade-off: docs/registry.md).
/// @dev Storage per strategy: one packed header slot (owner, status, pausedFrom, createdAt, lastStatusChange), the
///      DNA, one packed risk-parameter slot, the name and the description (Solidity string layout), plus one entry
///      in the owner's id list. Votes are ballots (vote, round) per voter; a review's tally is counted when it is
///      needed, over the current holders of the voting role (AccessControlEnumerable), so that a revoked or
///      renounced voter's ballot stops counting at once, and a review whose outcome no one can reach any more starts
///      a new round (`settleReview`, or the vote that made it so). Deprecation, and resuming another guardian's
///      pause, are guardian motions counted the same way, so that one key cannot override the review's quorum; a
///      single key may still pause (the circuit breaker).
contract StrategyRegistryV3 is AccessControlEnumerable, IStrategyRegistryV3 {
    /// @notice The automated screening bot (the service relayer).
    bytes32 public constant SCREENER_ROLE = keccak256("SCREENER_ROLE");
    /// @notice Guardians: review votes, circuit breaker (pause; resume of one's own pause), and the quorum votes
    ///         that deprecate or resume another guardian's pause.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");
    /// @notice Ends paper trading.
    bytes32 public constant MANAGER_ROLE = keccak256("MANAGER_ROLE");
    /// @notice Oracles: approval votes that make a strategy live.
    bytes32 public constant ORACLE_ROLE = keccak256("ORACLE_ROLE");

    uint256 internal constant NAME_MIN = 3;
    uint256 internal constant NAME_MAX = 100;
    uint256 internal constant DESCRIPTION_MIN = 10;
    uint256 internal constant DESCRIPTION_MAX = 2000;
    uint256 internal constant MAX_THRESHOLD = 32;
    uint256 internal constant MAX_PAPER_TRADING_PERIOD = 365 days;

    uint8 internal constant VOTE_NONE = 0;
    uint8 internal constant VOTE_APPROVE = 1;
    uint8 internal constant VOTE_REJECT = 2;

    /// @dev Risk parameters packed in one slot (bounds guarantee that every value fits its width).
    struct PackedRisk {
        uint8 maxPositionSizePercent;
        uint16 maxLeverage;
        uint16 stopLossPercent;
        uint16 slippageToleranceBps;
        uint8 correlationThreshold;
        bool flashLoansEnabled;
        uint184 velocityLimit;
    }

    struct Record {
        // slot 0: 20 + 1 + 1 + 5 + 5 bytes
        address owner;
        Status status;
        Status pausedFrom;
        uint40 createdAt;
        uint40 lastStatusChange;
        // slot 1
        bytes32 dna;
        // slot 2
        PackedRisk risk;
        // slots 3 and 4 (and their data slots)
        string name;
        string description;
        // slot 5: 20 + 5 + 4 bytes
        // The guardian whose pause is in force (the last pause); only it resumes alone.
        address pausedBy;
        // Seconds spent in paper_trading before the current stay, so that a pause neither counts nor restarts it.
        uint40 paperTradingTime;
        // Numbers the pauses: a resume ballot counts only in the pause it was cast in.
        uint32 pauseCount;
    }

    /// @dev One voter's vote in one review stage; it counts only in round `round` (a reset moves the round on).
    struct Ballot {
        uint8 vote;
        uint32 round;
    }

    /// @dev One guardian's motions on one strategy. `deprecateIn` is 1 + the lifecycle state (paused counts as the
    ///      state it paused in) the deprecation vote was cast in: it lapses when the lifecycle moves on, which it
    ///      never moves back. `resumeIn` is the number of the pause the resume vote was cast in.
    struct MotionBallot {
        uint8 deprecateIn;
        uint32 resumeIn;
    }

    mapping(bytes32 strategyId => Record) private _records;
    mapping(address owner => bytes32[]) private _idsOf;
    mapping(bytes32 strategyId => mapping(address guardian => Ballot)) private _guardianBallots;
    mapping(bytes32 strategyId => mapping(address oracle => Ballot)) private _oracleBallots;
    mapping(bytes32 strategyId => uint256) private _guardianRounds;
    mapping(bytes32 strategyId => uint256) private _oracleRounds;
    mapping(bytes32 strategyId => mapping(address guardian => MotionBallot)) private _motionBallots;

    /// @inheritdoc IStrategyRegistryV3
    uint256 public guardianThreshold;
    /// @inheritdoc IStrategyRegistryV3
    uint256 public oracleThreshold;
    /// @inheritdoc IStrategyRegistryV3
    uint256 public minPaperTradingPeriod;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the governance timelock; the deployer while wiring).
    /// @param guardianThreshold_ Guardian votes that decide a review (1-32).
    /// @param oracleThreshold_ Oracle votes that decide an approval (1-32).
    /// @param minPaperTradingPeriod_ Minimum paper-trading seconds (at most 365 days).
    constructor(address admin, uint256 guardianThreshold_, uint256 oracleThreshold_, uint256 minPaperTradingPeriod_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _setGuardianThreshold(guardianThreshold_);
        _setOracleThreshold(oracleThreshold_);
        _setMinPaperTradingPeriod(minPaperTradingPeriod_);
    }

    // ---------------------------------------------------------------- submission

    /// @inheritdoc IStrategyRegistryV3
    function submit(
        string calldata name,
        string calldata description,
        bytes32 dna,
        RiskParams calldata params
    ) external returns (bytes32 strategyId) {
        _checkLength("name", bytes(name).length, NAME_MIN, NAME_MAX);
        _checkLength("description", bytes(description).length, DESCRIPTION_MIN, DESCRIPTION_MAX);
        _checkRisk(params);

        uint256 index = _idsOf[msg.sender].length;
        strategyId = keccak256(abi.encode(block.chainid, address(this), msg.sender, index, dna));
        _idsOf[msg.sender].push(strategyId);

        Record storage record = _records[strategyId];
        record.owner = msg.sender;
        record.createdAt = uint40(block.timestamp);
        record.lastStatusChange = uint40(block.timestamp);
        // status and pausedFrom stay Shadow (0), written with the same slot.
        record.dna = dna;
        record.risk = PackedRisk({
            maxPositionSizePercent: uint8(params.maxPositionSizePercent),
            maxLeverage: uint16(params.maxLeverage),
            stopLossPercent: uint16(params.stopLossPercent),
            slippageToleranceBps: uint16(params.slippageToleranceBps),
            correlationThreshold: uint8(params.correlationThreshold),
            flashLoansEnabled: params.flashLoansEnabled,
            velocityLimit: uint184(params.velocityLimit)
        });
        record.name = name;
        record.description = description;

        emit StrategySubmitted(strategyId, msg.sender, dna, name, description, params, block.timestamp);
    }

    // ---------------------------------------------------------------- lifecycle

    /// @inheritdoc IStrategyRegistryV3
    function passScreening(bytes32 strategyId) external onlyRole(SCREENER_ROLE) {
        _move(strategyId, Status.Shadow, Status.GuardianReview);
    }

    /// @inheritdoc IStrategyRegistryV3
    function failScreening(bytes32 strategyId) external onlyRole(SCREENER_ROLE) {
        _move(strategyId, Status.Shadow, Status.Deprecated);
    }

    /// @inheritdoc IStrategyRegistryV3
    function guardianVote(bytes32 strategyId, bool approve) external onlyRole(GUARDIAN_ROLE) {
        _vote(strategyId, true, approve);
    }

    /// @inheritdoc IStrategyRegistryV3
    function completePaperTrading(bytes32 strategyId) external onlyRole(MANAGER_ROLE) {
        Record storage record = _requireStatus(strategyId, Status.PaperTrading, Status.PendingOracleApproval);
        uint256 spent = _paperTradingTime(record);
        uint256 period = minPaperTradingPeriod;
        if (spent < period) {
            revert StrategyPaperTradingTooShort(strategyId, block.timestamp + (period - spent), block.timestamp);
        }
        _setStatus(strategyId, Status.PaperTrading, Status.PendingOracleApproval);
    }

    /// @inheritdoc IStrategyRegistryV3
    function oracleVote(bytes32 strategyId, bool approve) external onlyRole(ORACLE_ROLE) {
        _vote(strategyId, false, approve);
    }

    /// @inheritdoc IStrategyRegistryV3
    function settleReview(bytes32 strategyId) external {
        Status status = _recordOf(strategyId).status;
        bool guardians = status == Status.GuardianReview;
        if (!guardians && status != Status.PendingOracleApproval) revert StrategyNotInReview(strategyId, status);
        (uint256 approvals, uint256 rejections, uint256 outstanding) = _count(strategyId, guardians);
        if (!_settle(strategyId, guardians, approvals, rejections, outstanding)) {
            revert StrategyReviewUndecided(strategyId, approvals, rejections, outstanding, _threshold(guardians));
        }
    }

    /// @inheritdoc IStrategyRegistryV3
    function pause(bytes32 strategyId) external onlyRole(GUARDIAN_ROLE) {
        Record storage record = _recordOf(strategyId);
        Status from = record.status;
        if (from == Status.Paused || from == Status.Deprecated) {
            revert StrategyIllegalTransition(strategyId, from, Status.Paused);
        }
        record.pausedFrom = from;
        record.pausedBy = msg.sender;
        ++record.pauseCount;
        _setStatus(strategyId, from, Status.Paused);
    }

    /// @inheritdoc IStrategyRegistryV3
    function resume(bytes32 strategyId) external onlyRole(GUARDIAN_ROLE) {
        Record storage record = _recordOf(strategyId);
        Status from = record.status;
        if (from != Status.Paused) {
            // The target a resume would reach is only defined for a paused strategy; report the attempted move
            // as "from -> from" otherwise (there is no state to return to).
            revert StrategyIllegalTransition(strategyId, from, from);
        }
        // The pauser undoes its own pause alone (a mistaken trip of the breaker); anyone else's resume is a vote.
        if (msg.sender != record.pausedBy && !_motion(strategyId, false, record.pauseCount)) return;
        _setStatus(strategyId, Status.Paused, record.pausedFrom);
    }

    /// @inheritdoc IStrategyRegistryV3
    function deprecate(bytes32 strategyId) external onlyRole(GUARDIAN_ROLE) {
        Record storage record = _recordOf(strategyId);
        Status from = record.status;
        if (from == Status.Deprecated) revert StrategyIllegalTransition(strategyId, from, Status.Deprecated);
        if (!_motion(strategyId, true, _stageMark(record))) return;
        _setStatus(strategyId, from, Status.Deprecated);
    }

    // ---------------------------------------------------------------- parameters

    /// @inheritdoc IStrategyRegistryV3
    function setGuardianThreshold(uint256 threshold) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setGuardianThreshold(threshold);
    }

    /// @inheritdoc IStrategyRegistryV3
    function setOracleThreshold(uint256 threshold) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setOracleThreshold(threshold);
    }

    /// @inheritdoc IStrategyRegistryV3
    function setMinPaperTradingPeriod(uint256 period) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setMinPaperTradingPeriod(period);
    }

    // ---------------------------------------------------------------- reads

    /// @inheritdoc IStrategyRegistryV3
    function getStrategy(bytes32 strategyId) external view returns (StrategyView memory) {
        _recordOf(strategyId);
        return _view(strategyId);
    }

    /// @inheritdoc IStrategyRegistryV3
    function strategyCountOf(address owner) external view returns (uint256) {
        return _idsOf[owner].length;
    }

    /// @inheritdoc IStrategyRegistryV3
    function strategiesOf(
        address owner,
        uint256 offset,
        uint256 limit
    ) external view returns (StrategyView[] memory page) {
        bytes32[] memory ids = _page(owner, offset, limit);
        page = new StrategyView[](ids.length);
        for (uint256 i = 0; i < ids.length; ++i) {
            page[i] = _view(ids[i]);
        }
    }

    /// @inheritdoc IStrategyRegistryV3
    function strategyIdsOf(address owner, uint256 offset, uint256 limit) external view returns (bytes32[] memory) {
        return _page(owner, offset, limit);
    }

    /// @inheritdoc IStrategyRegistryV3
    function guardianVoteOf(bytes32 strategyId, address voter) external view returns (uint8) {
        return _currentVote(_guardianBallots[strategyId][voter], _guardianRounds[strategyId]);
    }

    /// @inheritdoc IStrategyRegistryV3
    function oracleVoteOf(bytes32 strategyId, address voter) external view returns (uint8) {
        return _currentVote(_oracleBallots[strategyId][voter], _oracleRounds[strategyId]);
    }

    /// @inheritdoc IStrategyRegistryV3
    function reviewRounds(bytes32 strategyId) external view returns (uint256 guardianRound, uint256 oracleRound) {
        return (_guardianRounds[strategyId], _oracleRounds[strategyId]);
    }

    /// @inheritdoc IStrategyRegistryV3
    function guardianMotions(
        bytes32 strategyId
    ) external view returns (uint256 deprecationVotes, uint256 resumeVotes, address pausedBy) {
        Record storage record = _recordOf(strategyId);
        deprecationVotes = _countMotion(strategyId, true, _stageMark(record));
        // Resume votes exist only while paused; outside a pause the last pause's ballots mean nothing.
        if (record.status == Status.Paused) resumeVotes = _countMotion(strategyId, false, record.pauseCount);
        pausedBy = record.pausedBy;
    }

    /// @inheritdoc IStrategyRegistryV3
    function deprecationVoteOf(bytes32 strategyId, address guardian) external view returns (bool) {
        return _motionBallots[strategyId][guardian].deprecateIn == _stageMark(_recordOf(strategyId));
    }

    /// @inheritdoc IStrategyRegistryV3
    function resumeVoteOf(bytes32 strategyId, address guardian) external view returns (bool) {
        Record storage record = _recordOf(strategyId);
        return record.status == Status.Paused && _motionBallots[strategyId][guardian].resumeIn == record.pauseCount;
    }

    /// @inheritdoc IStrategyRegistryV3
    function paperTradingTime(bytes32 strategyId) external view returns (uint256) {
        return _paperTradingTime(_recordOf(strategyId));
    }

    // ---------------------------------------------------------------- internals

    function _checkLength(string memory field, uint256 length, uint256 min, uint256 max) private pure {
        if (length < min || length > max) revert StrategyTextLengthOutOfBounds(field, length, min, max);
    }

    function _checkRange(string memory param, uint256 value, uint256 min, uint256 max) private pure {
        if (value < min || value > max) revert StrategyRiskParamOutOfBounds(param, value, min, max);
    }

    function _checkRisk(RiskParams calldata params) private pure {
        _checkRange("max_position_size_percent", params.maxPositionSizePercent, 1, 100);
        _checkRange("max_leverage", params.maxLeverage, 100, 1000);
        _checkRange("stop_loss_percent", params.stopLossPercent, 50, 5000);
        _checkRange("slippage_tolerance_bps", params.slippageToleranceBps, 1, 1000);
        _checkRange("correlation_threshold", params.correlationThreshold, 0, 100);
        _checkRange("velocity_limit", params.velocityLimit, 1000, type(uint184).max);
    }

    function _recordOf(bytes32 strategyId) private view returns (Record storage record) {
        record = _records[strategyId];
        if (record.owner == address(0)) revert StrategyUnknown(strategyId);
    }

    /// @dev Loads the record and checks that it is in `expected`, reporting the attempted move `status -> to`.
    function _requireStatus(bytes32 strategyId, Status expected, Status to) private view returns (Record storage) {
        Record storage record = _recordOf(strategyId);
        if (record.status != expected) revert StrategyIllegalTransition(strategyId, record.status, to);
        return record;
    }

    function _move(bytes32 strategyId, Status from, Status to) private {
        _requireStatus(strategyId, from, to);
        _setStatus(strategyId, from, to);
    }

    /// @dev Writes status and timestamp in the header slot, then emits. Callers have checked the table.
    function _setStatus(bytes32 strategyId, Status from, Status to) private {
        Record storage record = _records[strategyId];
        if (from == Status.PaperTrading) {
            // Bank the stay that ends: a resume starts a new one that adds to it, so a pause neither counts nor
            // restarts the period (and the total stays readable after paper trading).
            record.paperTradingTime = uint40(_paperTradingTime(record));
        }
        record.status = to;
        record.lastStatusChange = uint40(block.timestamp);
        emit StrategyStatusChanged(strategyId, from, to, msg.sender, block.timestamp);
    }

    /// @dev Seconds spent in paper_trading: the banked stays plus the current one (while in paper_trading).
    function _paperTradingTime(Record storage record) private view returns (uint256) {
        uint256 spent = record.paperTradingTime;
        if (record.status == Status.PaperTrading) spent += block.timestamp - record.lastStatusChange;
        return spent;
    }

    /// @dev 1 + the lifecycle state a deprecation vote belongs to (a paused strategy counts as the state it paused
    ///      in); never 0, so that an empty ballot matches no state.
    function _stageMark(Record storage record) private view returns (uint8) {
        Status stage = record.status == Status.Paused ? record.pausedFrom : record.status;
        return uint8(stage) + 1;
    }

    /// @dev Records the caller's ballot in a guardian motion (`deprecation`, else resume) identified by `mark`,
    ///      emits the count of current guardians, and returns whether it reached `guardianThreshold`. A guardian who
    ///      already voted may call again only to carry a motion that reached the threshold since (after a threshold
    ///      change); otherwise `StrategyAlreadyVoted`.
    function _motion(bytes32 strategyId, bool deprecation, uint256 mark) private returns (bool) {
        MotionBallot storage ballot = _motionBallots[strategyId][msg.sender];
        bool voted = deprecation ? ballot.deprecateIn == mark : ballot.resumeIn == mark;
        if (!voted) {
            // mark fits: a lifecycle state + 1 (at most 6) or a pause number (uint32).
            if (deprecation) ballot.deprecateIn = uint8(mark);
            else ballot.resumeIn = uint32(mark);
        }
        uint256 votes = _countMotion(strategyId, deprecation, mark);
        bool carried = votes >= guardianThreshold;
        if (voted) {
            if (!carried) revert StrategyAlreadyVoted(strategyId, msg.sender);
        } else if (deprecation) {
            emit DeprecationVoteCast(strategyId, msg.sender, votes);
        } else {
            emit ResumeVoteCast(strategyId, msg.sender, votes);
        }
        return carried;
    }

    /// @dev Current guardians whose ballot in the motion is `mark`. One storage read per guardian.
    function _countMotion(bytes32 strategyId, bool deprecation, uint256 mark) private view returns (uint256 votes) {
        address[] memory guardians = getRoleMembers(GUARDIAN_ROLE);
        mapping(address => MotionBallot) storage ballots = _motionBallots[strategyId];
        for (uint256 i = 0; i < guardians.length; ++i) {
            MotionBallot memory ballot = ballots[guardians[i]];
            if ((deprecation ? ballot.deprecateIn : ballot.resumeIn) == mark) ++votes;
        }
    }

    function _page(address owner, uint256 offset, uint256 limit) private view returns (bytes32[] memory ids) {
        bytes32[] storage all = _idsOf[owner];
        uint256 total = all.length;
        if (offset >= total) return new bytes32[](0);
        uint256 end = total - offset < limit ? total : offset + limit;
        ids = new bytes32[](end - offset);
        for (uint256 i = offset; i < end; ++i) {
            ids[i - offset] = all[i];
        }
    }

    /// @dev Records the caller's ballot in the stage (`guardians`: guardian review, else oracle approval), emits
    ///      the tally of current role holders, then decides or resets the review if the tally says so.
    function _vote(bytes32 strategyId, bool guardians, bool approve) private {
        Status target = approve ? (guardians ? Status.PaperTrading : Status.Live) : Status.Deprecated;
        _requireStatus(strategyId, guardians ? Status.GuardianReview : Status.PendingOracleApproval, target);
        Ballot storage ballot = (guardians ? _guardianBallots : _oracleBallots)[strategyId][msg.sender];
        uint256 round = (guardians ? _guardianRounds : _oracleRounds)[strategyId];
        if (ballot.vote != VOTE_NONE && ballot.round == round) revert StrategyAlreadyVoted(strategyId, msg.sender);
        ballot.vote = approve ? VOTE_APPROVE : VOTE_REJECT;
        // A round moves on only when a review is reset; 2^32 resets of one review cannot happen in practice.
        ballot.round = uint32(round);

        (uint256 approvals, uint256 rejections, uint256 outstanding) = _count(strategyId, guardians);
        if (guardians) emit GuardianVoteCast(strategyId, msg.sender, approve, approvals, rejections);
        else emit OracleVoteCast(strategyId, msg.sender, approve, approvals, rejections);
        _settle(strategyId, guardians, approvals, rejections, outstanding);
    }

    /// @dev Ballots of the current round cast by current holders of the stage's role, and how many holders have not
    ///      voted in it. Costs two storage reads per role holder.
    function _count(
        bytes32 strategyId,
        bool guardians
    ) private view returns (uint256 approvals, uint256 rejections, uint256 outstanding) {
        address[] memory voters = getRoleMembers(guardians ? GUARDIAN_ROLE : ORACLE_ROLE);
        mapping(address => Ballot) storage ballots = (guardians ? _guardianBallots : _oracleBallots)[strategyId];
        uint256 round = (guardians ? _guardianRounds : _oracleRounds)[strategyId];
        for (uint256 i = 0; i < voters.length; ++i) {
            Ballot memory ballot = ballots[voters[i]];
            if (ballot.vote == VOTE_NONE || ballot.round != round) continue;
            if (ballot.vote == VOTE_APPROVE) ++approvals;
            else ++rejections;
        }
        outstanding = voters.length - approvals - rejections;
    }

    /// @dev k approvals or k rejections decide the stage (rejections first: both reach k only after the threshold
    ///      was lowered, and then the strategy is not approved); if neither side can reach k even with every
    ///      outstanding vote, the review starts a new round in which every holder votes afresh. Returns whether
    ///      anything happened.
    function _settle(
        bytes32 strategyId,
        bool guardians,
        uint256 approvals,
        uint256 rejections,
        uint256 outstanding
    ) private returns (bool) {
        Status stage = guardians ? Status.GuardianReview : Status.PendingOracleApproval;
        uint256 k = _threshold(guardians);
        if (rejections >= k) {
            _setStatus(strategyId, stage, Status.Deprecated);
        } else if (approvals >= k) {
            _setStatus(strategyId, stage, guardians ? Status.PaperTrading : Status.Live);
        } else if (approvals + outstanding < k && rejections + outstanding < k) {
            uint256 round = ++(guardians ? _guardianRounds : _oracleRounds)[strategyId];
            emit ReviewReset(strategyId, stage, round, approvals, rejections);
        } else {
            return false;
        }
        return true;
    }

    function _threshold(bool guardians) private view returns (uint256) {
        return guardians ? guardianThreshold : oracleThreshold;
    }

    function _currentVote(Ballot storage ballot, uint256 round) private view returns (uint8) {
        return ballot.round == round ? ballot.vote : VOTE_NONE;
    }

    function _view(bytes32 strategyId) private view returns (StrategyView memory out) {
        Record storage record = _records[strategyId];
        PackedRisk memory risk = record.risk;
        out.id = strategyId;
        out.owner = record.owner;
        out.name = record.name;
        out.description = record.description;
        out.dna = record.dna;
        out.status = record.status;
        out.pausedFrom = record.pausedFrom;
        out.createdAt = record.createdAt;
        out.lastStatusChange = record.lastStatusChange;
        out.params = RiskParams({
            maxPositionSizePercent: risk.maxPositionSizePercent,
            maxLeverage: risk.maxLeverage,
            stopLossPercent: risk.stopLossPercent,
            slippageToleranceBps: risk.slippageToleranceBps,
            correlationThreshold: risk.correlationThreshold,
            velocityLimit: risk.velocityLimit,
            flashLoansEnabled: risk.flashLoansEnabled
        });
        (out.guardianApprovals, out.guardianRejections, ) = _count(strategyId, true);
        (out.oracleApprovals, out.oracleRejections, ) = _count(strategyId, false);
    }

    function _setGuardianThreshold(uint256 threshold) private {
        if (threshold == 0 || threshold > MAX_THRESHOLD) {
            revert StrategyThresholdOutOfBounds(threshold, 1, MAX_THRESHOLD);
        }
        emit GuardianThresholdSet(guardianThreshold, threshold);
        guardianThreshold = threshold;
    }

    function _setOracleThreshold(uint256 threshold) private {
        if (threshold == 0 || threshold > MAX_THRESHOLD) {
            revert StrategyThresholdOutOfBounds(threshold, 1, MAX_THRESHOLD);
        }
        emit OracleThresholdSet(oracleThreshold, threshold);
        oracleThreshold = threshold;
    }

    function _setMinPaperTradingPeriod(uint256 period) private {
        if (period > MAX_PAPER_TRADING_PERIOD) revert StrategyPeriodOutOfBounds(period, MAX_PAPER_TRADING_PERIOD);
        emit MinPaperTradingPeriodSet(minPaperTradingPeriod, period);
        minPaperTradingPeriod = period;
    }
}
