// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {INapMinter} from "../interfaces/INapMinter.sol";
import {INapToken} from "../interfaces/INapToken.sol";

/// @title NapMinter
/// @notice Holds NapToken's MINTER_ROLE so that no hot key does: the service relayer (this contract's MINTER_ROLE)
///         mints the agents' NAP grants through it, at most `budget` per window of `period` seconds, both set by
///         governance. A stolen relayer key therefore mints at most the budget per window, which the deployment sizes
///         far below the votes needed to pass a proposal in the time a proposal takes (docs/governance.md).
/// @dev Fixed windows (see INapMinter). The budget is checked and the window's count written before the token call.
contract NapMinter is AccessControl, INapMinter {
    /// @notice The account allowed to mint within the budget (the service relayer).
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    /// @notice Shortest window governance may set.
    uint256 public constant MIN_PERIOD = 1 hours;
    /// @notice Longest window governance may set.
    uint256 public constant MAX_PERIOD = 365 days;

    /// @inheritdoc INapMinter
    address public immutable token;

    // One slot for the settings and one for the window, both read by every mint.
    uint208 private _budget;
    uint48 private _period;
    uint48 private _windowStart;
    uint208 private _mintedInWindow;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the governance timelock; the deployer while wiring).
    /// @param token_ The NAP token; this contract must be given its MINTER_ROLE.
    /// @param budget_ NAP base units per window.
    /// @param period_ Window length in seconds (1 hour to 365 days).
    constructor(address admin, address token_, uint256 budget_, uint256 period_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        token = token_;
        _setBudget(budget_, period_);
        _windowStart = uint48(block.timestamp);
    }

    /// @inheritdoc INapMinter
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        (uint256 start, uint256 minted) = _window();
        uint256 left = _left(minted);
        if (amount > left) revert NapMinterBudgetExceeded(amount, left, start + _period);
        minted += amount;
        // minted <= budget < 2^208 and start <= block.timestamp < 2^48: both fit their widths.
        _windowStart = uint48(start);
        _mintedInWindow = uint208(minted);
        emit GrantMinted(msg.sender, to, amount, minted);
        INapToken(token).mint(to, amount);
    }

    /// @inheritdoc INapMinter
    function setBudget(uint256 newBudget, uint256 newPeriod) external onlyRole(DEFAULT_ADMIN_ROLE) {
        (, uint256 minted) = _window();
        _setBudget(newBudget, newPeriod);
        // A new window starts now and keeps what the current one minted, so that a change of settings never
        // opens a second budget in the same window.
        _windowStart = uint48(block.timestamp);
        _mintedInWindow = uint208(minted);
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
    function windowStart() external view returns (uint256 start) {
        (start, ) = _window();
    }

    /// @inheritdoc INapMinter
    function mintedInWindow() external view returns (uint256 minted) {
        (, minted) = _window();
    }

    /// @inheritdoc INapMinter
    function available() external view returns (uint256 amount, uint256 resetsAt) {
        (uint256 start, uint256 minted) = _window();
        amount = _left(minted);
        resetsAt = start + _period;
    }

    /// @dev The current window's start and count: the stored window, or the window `now` falls in (count 0) once
    ///      the stored one has passed. The count may exceed the budget only after governance lowered it.
    function _window() private view returns (uint256 start, uint256 minted) {
        start = _windowStart;
        uint256 length = _period;
        if (block.timestamp < start + length) return (start, _mintedInWindow);
        // Rounding down to the window grid is the point: the division truncates to whole windows elapsed
        // (docs/slither-triage.md).
        // slither-disable-next-line divide-before-multiply
        start += ((block.timestamp - start) / length) * length;
        minted = 0;
    }

    function _left(uint256 minted) private view returns (uint256) {
        uint256 limit = _budget;
        return minted < limit ? limit - minted : 0;
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
}
