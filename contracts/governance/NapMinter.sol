// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {INapMinter} from "../interfaces/INapMinter.sol";
import {INapToken} from "../interfaces/INapToken.sol";

/// @title NapMinter
/// @notice Holds NapToken's MINTER_ROLE so that no hot key does: the service relayer (this contract's MINTER_ROLE)
///         mints the agents' NAP grants through it. A window of `period` seconds may mint at most
///         min(budget, max(supply * supplyBps / 10,000, floor - supply)), where supply is the token's total supply
///         when the window opened, and one recipient at most `recipientBps` of that per window. A stolen relayer key
///         therefore adds at most a fixed amount and a fixed fraction of the votes per window, which the deployment
///         sizes far below the votes needed to pass a proposal in the time a proposal takes (docs/governance.md).
/// @dev Fixed windows (see INapMinter). Every limit is checked and the window's counts written before the token call.
contract NapMinter is AccessControl, INapMinter {
    /// @notice The account allowed to mint within the budget (the service relayer).
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    /// @notice Shortest window governance may set.
    uint256 public constant MIN_PERIOD = 1 hours;
    /// @notice Longest window governance may set.
    uint256 public constant MAX_PERIOD = 365 days;
    /// @notice Largest share of the supply one window may mint, in basis points (10%).
    uint256 public constant MAX_SUPPLY_BPS = 1_000;
    /// @notice Largest supply floor governance may set (NAP base units): below it a window may mint up to it.
    uint256 public constant MAX_FLOOR = 100_000e18;
    /// @notice Supply share per window at deployment (1%).
    uint256 public constant DEFAULT_SUPPLY_BPS = 100;
    /// @notice Supply floor at deployment: ten grants of 100 NAP, so that a token with no supply can start.
    uint256 public constant DEFAULT_FLOOR = 1_000e18;
    /// @notice Share of a window one recipient may take at deployment (all of it; governance may lower it).
    uint256 public constant DEFAULT_RECIPIENT_BPS = 10_000;

    uint256 private constant _BPS = 10_000;

    /// @inheritdoc INapMinter
    address public immutable token;

    // One slot for the settings, one for the window and one for the supply rule, all read by every mint.
    uint208 private _budget;
    uint48 private _period;
    uint48 private _windowStart;
    uint208 private _mintedInWindow;
    uint208 private _windowSupply;
    uint16 private _supplyBps;
    uint16 private _recipientBps;
    uint208 private _floor;

    // Per recipient: the window start its count belongs to (upper 48 bits) and the count (lower 208 bits).
    mapping(address recipient => uint256) private _received;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the governance timelock; the deployer while wiring).
    /// @param token_ The NAP token; this contract must be given its MINTER_ROLE.
    /// @param budget_ NAP base units per window at most, whatever the supply.
    /// @param period_ Window length in seconds (1 hour to 365 days).
    constructor(address admin, address token_, uint256 budget_, uint256 period_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        token = token_;
        _setBudget(budget_, period_);
        _setSupplyLimit(DEFAULT_SUPPLY_BPS, DEFAULT_FLOOR, DEFAULT_RECIPIENT_BPS);
        _windowStart = uint48(block.timestamp);
        _windowSupply = uint208(IERC20(token_).totalSupply());
    }

    /// @inheritdoc INapMinter
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        (uint256 start, uint256 minted, uint256 supply) = _window();
        uint256 limit = _limit(supply);
        uint256 left = minted < limit ? limit - minted : 0;
        if (amount > left) revert NapMinterBudgetExceeded(amount, left, start + _period);
        uint256 received = _receivedIn(to, start);
        uint256 share = (limit * _recipientBps) / _BPS;
        uint256 shareLeft = received < share ? share - received : 0;
        if (amount > shareLeft) revert NapMinterRecipientShareExceeded(to, amount, shareLeft, start + _period);
        minted += amount;
        // minted <= limit <= budget < 2^208, supply <= NapToken's cap < 2^208, start <= block.timestamp < 2^48.
        _windowStart = uint48(start);
        _mintedInWindow = uint208(minted);
        _windowSupply = uint208(supply);
        _received[to] = (start << 208) | (received + amount);
        emit GrantMinted(msg.sender, to, amount, minted);
        INapToken(token).mint(to, amount);
    }

    /// @inheritdoc INapMinter
    function setBudget(uint256 newBudget, uint256 newPeriod) external onlyRole(DEFAULT_ADMIN_ROLE) {
        (, uint256 minted, uint256 supply) = _window();
        _setBudget(newBudget, newPeriod);
        // A new window starts now and keeps what the current one minted and the supply it counts from, so that a
        // change of settings never opens a second budget in the same window.
        _windowStart = uint48(block.timestamp);
        _mintedInWindow = uint208(minted);
        _windowSupply = uint208(supply);
    }

    /// @inheritdoc INapMinter
    function setSupplyLimit(
        uint256 newSupplyBps,
        uint256 newFloor,
        uint256 newRecipientBps
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setSupplyLimit(newSupplyBps, newFloor, newRecipientBps);
    }

    /// @inheritdoc INapMinter
    function budget() external view returns (uint256) {
        return _budget;
    }

    /// @inheritdoc INapMinter
    function period() external view returns (uint256) {
        return _period;
    }

    /// @inheritdoc INapMinter
    function supplyBps() external view returns (uint256) {
        return _supplyBps;
    }

    /// @inheritdoc INapMinter
    function floor() external view returns (uint256) {
        return _floor;
    }

    /// @inheritdoc INapMinter
    function recipientBps() external view returns (uint256) {
        return _recipientBps;
    }

    /// @inheritdoc INapMinter
    function windowStart() external view returns (uint256 start) {
        (start, , ) = _window();
    }

    /// @inheritdoc INapMinter
    function mintedInWindow() external view returns (uint256 minted) {
        (, minted, ) = _window();
    }

    /// @inheritdoc INapMinter
    function windowSupply() external view returns (uint256 supply) {
        (, , supply) = _window();
    }

    /// @inheritdoc INapMinter
    function windowLimit() external view returns (uint256) {
        (, , uint256 supply) = _window();
        return _limit(supply);
    }

    /// @inheritdoc INapMinter
    function available() external view returns (uint256 amount, uint256 resetsAt) {
        (uint256 start, uint256 minted, uint256 supply) = _window();
        uint256 limit = _limit(supply);
        amount = minted < limit ? limit - minted : 0;
        resetsAt = start + _period;
    }

    /// @inheritdoc INapMinter
    function availableTo(address recipient) external view returns (uint256 amount, uint256 resetsAt) {
        (uint256 start, uint256 minted, uint256 supply) = _window();
        uint256 limit = _limit(supply);
        uint256 received = _receivedIn(recipient, start);
        uint256 share = (limit * _recipientBps) / _BPS;
        uint256 left = minted < limit ? limit - minted : 0;
        amount = received < share ? share - received : 0;
        if (left < amount) amount = left;
        resetsAt = start + _period;
    }

    /// @dev The current window's start, count and supply: the stored window, or the window `now` falls in (count 0,
    ///      supply as of now) once the stored one has passed. The count may exceed the limit only after governance
    ///      lowered it. Only this contract mints NAP, so the supply read at a window's first mint is its opening one.
    function _window() private view returns (uint256 start, uint256 minted, uint256 supply) {
        start = _windowStart;
        uint256 length = _period;
        if (block.timestamp < start + length) return (start, _mintedInWindow, _windowSupply);
        // Rounding down to the window grid is the point: the division truncates to whole windows elapsed
        // (docs/slither-triage.md).
        // slither-disable-next-line divide-before-multiply
        start += ((block.timestamp - start) / length) * length;
        minted = 0;
        supply = IERC20(token).totalSupply();
    }

    /// @dev min(budget, max(supply share, what brings the supply up to the floor)).
    function _limit(uint256 supply) private view returns (uint256 limit) {
        limit = (supply * _supplyBps) / _BPS;
        uint256 toFloor = _floor;
        toFloor = supply < toFloor ? toFloor - supply : 0;
        if (toFloor > limit) limit = toFloor;
        uint256 fixedBudget = _budget;
        if (fixedBudget < limit) limit = fixedBudget;
    }

    function _receivedIn(address recipient, uint256 start) private view returns (uint256) {
        uint256 packed = _received[recipient];
        // A window's start is compared, not a balance: see docs/slither-triage.md (incorrect-equality).
        // slither-disable-next-line incorrect-equality
        return packed >> 208 == start ? packed & type(uint208).max : 0;
    }

    function _setBudget(uint256 newBudget, uint256 newPeriod) private {
        if (newPeriod < MIN_PERIOD || newPeriod > MAX_PERIOD) {
            revert NapMinterPeriodOutOfBounds(newPeriod, MIN_PERIOD, MAX_PERIOD);
        }
        if (newBudget > type(uint208).max) revert NapMinterBudgetOutOfBounds(newBudget, type(uint208).max);
        _budget = uint208(newBudget);
        _period = uint48(newPeriod);
        emit BudgetSet(newBudget, newPeriod);
    }

    function _setSupplyLimit(uint256 newSupplyBps, uint256 newFloor, uint256 newRecipientBps) private {
        if (newSupplyBps == 0 || newSupplyBps > MAX_SUPPLY_BPS) {
            revert NapMinterSupplyLimitOutOfBounds("supplyBps", newSupplyBps, 1, MAX_SUPPLY_BPS);
        }
        if (newFloor > MAX_FLOOR) revert NapMinterSupplyLimitOutOfBounds("floor", newFloor, 0, MAX_FLOOR);
        if (newRecipientBps == 0 || newRecipientBps > _BPS) {
            revert NapMinterSupplyLimitOutOfBounds("recipientBps", newRecipientBps, 1, _BPS);
        }
        _supplyBps = uint16(newSupplyBps);
        _floor = uint208(newFloor);
        _recipientBps = uint16(newRecipientBps);
        emit SupplyLimitSet(newSupplyBps, newFloor, newRecipientBps);
    }
}
