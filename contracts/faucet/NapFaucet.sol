// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {INapFaucet} from "../interfaces/INapFaucet.sol";
import {ITestUSDC} from "../interfaces/ITestUSDC.sol";

/// @title NapFaucet
/// @notice Testnet faucet for agent wallets, driven by the service relayer.
/// @dev Invariant: for every recipient, two drips are at least `cooldown` seconds apart (as the cooldown stood at the
///      second drip). The cooldown is recorded before any external call, and only DRIPPER_ROLE can drip, so a
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

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the timelock once wired).
    /// @param usdc_ USDC token to drip, or the zero address for none.
    /// @param usdcMintable_ True when the faucet mints `usdc_` (it must then be given its MINTER_ROLE).
    /// @param ethAmount_ Wei per drip (at most 1 ether).
    /// @param usdcAmount_ USDC units per drip (at most 10,000 USDC; 0 if `usdc_` is zero).
    /// @param cooldown_ Seconds between drips to one recipient (1 minute to 30 days).
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
        return last == 0 ? 0 : last + cooldown;
    }

    function _sendEth(address payable to, uint256 amount) private {
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert FaucetEthTransferFailed(to, amount);
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
