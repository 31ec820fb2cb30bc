// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {INapFaucet} from "../interfaces/INapFaucet.sol";
import {ITestUSDC} from "../interfaces/ITestUSDC.sol";

/// @title NapFaucet
/// @notice Testnet faucet for agent wallets, driven by the service relayer. Besides each recipient's cooldown, a global
///         budget per window of `budgetPeriod` seconds bounds the ETH and the USDC all drips of the window send, so a
///         stolen relayer key dripping to fresh addresses empties at most one window's budget per window.
/// @dev Invariants: for every recipient, two drips are at least `cooldown` seconds apart (as the cooldown stood at the
///      second drip); the ETH and the USDC dripped inside one fixed window never exceed the budgets in force at each
///      of its drips. The cooldown is recorded before any external call, and only DRIPPER_ROLE can drip, so a
///      recipient re-entering from its receive hook cannot drip twice.
contract NapFaucet is AccessControl, INapFaucet {
    using SafeERC20 for IERC20;

    /// @notice The service relayer: the only account that may drip.
    bytes32 public constant DRIPPER_ROLE = keccak256("DRIPPER_ROLE");

    /// @notice Upper bound of the ETH drip.
    uint256 public constant MAX_ETH_AMOUNT = 1 ether;
    /// @notice Upper bound of the USDC drip (10,000 USDC, 6 decimals).
    uint256 public constant MAX_USDC_AMOUNT = 10_000e6;
    /// @notice Lower bound of the cooldown.
    uint256 public constant MIN_COOLDOWN = 1 minutes;
    /// @notice Upper bound of the cooldown.
    uint256 public constant MAX_COOLDOWN = 30 days;
    /// @notice Upper bound of the ETH budget per window.
    uint256 public constant MAX_ETH_BUDGET = 100 ether;
    /// @notice Upper bound of the USDC budget per window (1,000,000 USDC).
    uint256 public constant MAX_USDC_BUDGET = 1_000_000e6;
    /// @notice Shortest budget window.
    uint256 public constant MIN_BUDGET_PERIOD = 1 hours;
    /// @notice Longest budget window.
    uint256 public constant MAX_BUDGET_PERIOD = 30 days;
    /// @notice The budgets at deployment are this many drips of the amounts at deployment, per day.
    uint256 public constant DEFAULT_WINDOW_DRIPS = 100;

    /// @inheritdoc INapFaucet
    address public immutable usdc;
    /// @inheritdoc INapFaucet
    bool public immutable usdcMintable;

    /// @inheritdoc INapFaucet
    uint256 public ethAmount;
    /// @inheritdoc INapFaucet
    uint256 public usdcAmount;
    /// @inheritdoc INapFaucet
    uint256 public cooldown;
    /// @inheritdoc INapFaucet
    mapping(address recipient => uint256) public lastDripAt;
    /// @inheritdoc INapFaucet
    uint256 public ethBudget;
    /// @inheritdoc INapFaucet
    uint256 public usdcBudget;
    /// @inheritdoc INapFaucet
    uint256 public budgetPeriod;

    // The window: its start and what its drips sent, read and written by every drip.
    uint256 private _windowStart;
    uint128 private _ethInWindow;
    uint128 private _usdcInWindow;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the timelock once wired).
    /// @param usdc_ USDC token to drip, or the zero address for none.
    /// @param usdcMintable_ True when the faucet mints `usdc_` (it must then be given its MINTER_ROLE).
    /// @param ethAmount_ Wei per drip (at most 1 ether).
    /// @param usdcAmount_ USDC units per drip (at most 10,000 USDC; 0 if `usdc_` is zero).
    /// @param cooldown_ Seconds between drips to one recipient (1 minute to 30 days).
    /// @dev The budgets start at DEFAULT_WINDOW_DRIPS drips of the given amounts a day; governance sets them after.
    constructor(
        address admin,
        address usdc_,
        bool usdcMintable_,
        uint256 ethAmount_,
        uint256 usdcAmount_,
        uint256 cooldown_
    ) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        usdc = usdc_;
        usdcMintable = usdcMintable_;
        _setDripAmounts(ethAmount_, usdcAmount_);
        _setCooldown(cooldown_);
        _setBudget(ethAmount_ * DEFAULT_WINDOW_DRIPS, usdcAmount_ * DEFAULT_WINDOW_DRIPS, 1 days);
        _windowStart = block.timestamp;
    }

    /// @notice Accepts funding by plain transfer.
    receive() external payable {
        emit Funded(msg.sender, msg.value);
    }

    /// @inheritdoc INapFaucet
    function drip(address recipient) external onlyRole(DRIPPER_ROLE) returns (uint256 ethSent, uint256 usdcSent) {
        if (recipient == address(0)) revert FaucetZeroAddress();
        uint256 last = lastDripAt[recipient];
        if (last != 0 && block.timestamp < last + cooldown) revert FaucetCooldown(recipient, last + cooldown);
        ethSent = ethAmount;
        usdcSent = usdcAmount;
        if (address(this).balance < ethSent) revert FaucetInsufficientEth(address(this).balance, ethSent);

        (uint256 start, uint256 ethSpent, uint256 usdcSpent) = _window();
        uint256 resetsAt = start + budgetPeriod;
        uint256 limit = ethBudget;
        if (ethSpent + ethSent > limit) {
            revert FaucetBudgetExceeded("eth", ethSent, ethSpent < limit ? limit - ethSpent : 0, resetsAt);
        }
        limit = usdcBudget;
        if (usdcSpent + usdcSent > limit) {
            revert FaucetBudgetExceeded("usdc", usdcSent, usdcSpent < limit ? limit - usdcSpent : 0, resetsAt);
        }
        // Both sums are at most their budgets, far below 2^128.
        _windowStart = start;
        _ethInWindow = uint128(ethSpent + ethSent);
        _usdcInWindow = uint128(usdcSpent + usdcSent);
        lastDripAt[recipient] = block.timestamp;
        uint256 next = block.timestamp + cooldown;
        emit Dripped(recipient, msg.sender, ethSent, usdcSent, next);

        if (usdcSent > 0) {
            if (usdcMintable) {
                ITestUSDC(usdc).mint(recipient, usdcSent);
            } else {
                uint256 balance = IERC20(usdc).balanceOf(address(this));
                if (balance < usdcSent) revert FaucetInsufficientUsdc(balance, usdcSent);
                IERC20(usdc).safeTransfer(recipient, usdcSent);
            }
        }
        if (ethSent > 0) _sendEth(payable(recipient), ethSent);
    }

    /// @inheritdoc INapFaucet
    function setDripAmounts(uint256 ethAmount_, uint256 usdcAmount_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setDripAmounts(ethAmount_, usdcAmount_);
    }

    /// @inheritdoc INapFaucet
    function setCooldown(uint256 cooldown_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setCooldown(cooldown_);
    }

    /// @inheritdoc INapFaucet
    function setBudget(
        uint256 ethBudget_,
        uint256 usdcBudget_,
        uint256 budgetPeriod_
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        (, uint256 ethSpent, uint256 usdcSpent) = _window();
        _setBudget(ethBudget_, usdcBudget_, budgetPeriod_);
        // A new window starts now and keeps what the current one sent, so that a change never opens a second budget
        // in the same window.
        _windowStart = block.timestamp;
        _ethInWindow = uint128(ethSpent);
        _usdcInWindow = uint128(usdcSpent);
    }

    /// @inheritdoc INapFaucet
    function budgetLeft() external view returns (uint256 eth, uint256 usdcLeft, uint256 resetsAt) {
        (uint256 start, uint256 ethSpent, uint256 usdcSpent) = _window();
        eth = ethSpent < ethBudget ? ethBudget - ethSpent : 0;
        usdcLeft = usdcSpent < usdcBudget ? usdcBudget - usdcSpent : 0;
        resetsAt = start + budgetPeriod;
    }

    /// @inheritdoc INapFaucet
    function withdrawEth(address payable to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert FaucetZeroAddress();
        if (address(this).balance < amount) revert FaucetInsufficientEth(address(this).balance, amount);
        emit EthWithdrawn(to, amount);
        _sendEth(to, amount);
    }

    /// @inheritdoc INapFaucet
    function withdrawToken(address token, address to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (to == address(0)) revert FaucetZeroAddress();
        emit TokenWithdrawn(token, to, amount);
        IERC20(token).safeTransfer(to, amount);
    }

    /// @inheritdoc INapFaucet
    function nextEligibleAt(address recipient) external view returns (uint256) {
        uint256 last = lastDripAt[recipient];
        return last > 0 ? last + cooldown : 0;
    }

    /// @dev Callers are role-gated (DRIPPER_ROLE to a recipient, DEFAULT_ADMIN_ROLE to any address): sending ETH to an
    ///      address chosen by them is the faucet's purpose (docs/slither-triage.md).
    function _sendEth(address payable to, uint256 amount) private {
        // slither-disable-next-line arbitrary-send-eth
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert FaucetEthTransferFailed(to, amount);
    }

    /// @dev The current window's start and what it sent: the stored window, or the window `now` falls in (nothing
    ///      sent) once the stored one has passed. What was sent may exceed a budget only after governance lowered it.
    function _window() private view returns (uint256 start, uint256 ethSpent, uint256 usdcSpent) {
        start = _windowStart;
        uint256 length = budgetPeriod;
        if (block.timestamp < start + length) return (start, _ethInWindow, _usdcInWindow);
        // Rounding down to the window grid is the point: the division truncates to whole windows elapsed.
        // slither-disable-next-line divide-before-multiply
        start += ((block.timestamp - start) / length) * length;
    }

    function _setBudget(uint256 ethBudget_, uint256 usdcBudget_, uint256 budgetPeriod_) private {
        if (ethBudget_ > MAX_ETH_BUDGET) revert FaucetAmountOutOfBounds("ethBudget", ethBudget_, MAX_ETH_BUDGET);
        if (usdcBudget_ > MAX_USDC_BUDGET) revert FaucetAmountOutOfBounds("usdcBudget", usdcBudget_, MAX_USDC_BUDGET);
        if (budgetPeriod_ < MIN_BUDGET_PERIOD || budgetPeriod_ > MAX_BUDGET_PERIOD) {
            revert FaucetBudgetPeriodOutOfBounds(budgetPeriod_, MIN_BUDGET_PERIOD, MAX_BUDGET_PERIOD);
        }
        ethBudget = ethBudget_;
        usdcBudget = usdcBudget_;
        budgetPeriod = budgetPeriod_;
        emit BudgetSet(ethBudget_, usdcBudget_, budgetPeriod_);
    }

    function _setDripAmounts(uint256 ethAmount_, uint256 usdcAmount_) private {
        if (ethAmount_ > MAX_ETH_AMOUNT) revert FaucetAmountOutOfBounds("eth", ethAmount_, MAX_ETH_AMOUNT);
        if (usdcAmount_ > MAX_USDC_AMOUNT) revert FaucetAmountOutOfBounds("usdc", usdcAmount_, MAX_USDC_AMOUNT);
        if (usdcAmount_ > 0 && usdc == address(0)) revert FaucetNoUsdc();
        ethAmount = ethAmount_;
        usdcAmount = usdcAmount_;
        emit DripAmountsSet(ethAmount_, usdcAmount_);
    }

    function _setCooldown(uint256 cooldown_) private {
        if (cooldown_ < MIN_COOLDOWN || cooldown_ > MAX_COOLDOWN) {
            revert FaucetCooldownOutOfBounds(cooldown_, MIN_COOLDOWN, MAX_COOLDOWN);
        }
        cooldown = cooldown_;
        emit CooldownSet(cooldown_);
    }
}
