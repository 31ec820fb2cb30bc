// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title INapFaucet
/// @notice Testnet faucet: the service relayer (DRIPPER_ROLE) sends a fixed amount of ETH, and test USDC where the
///         deployment owns it, to a new agent wallet, at most once per cooldown per recipient, and within a global
///         budget of ETH and of USDC per window of `budgetPeriod` seconds (fixed windows from the deployment or the
///         last `setBudget`).
interface INapFaucet {
    /// @notice Emitted on every drip; `nextEligibleAt` is when `recipient` may receive again.
    event Dripped(
        address indexed recipient,
        address indexed dripper,
        uint256 ethAmount,
        uint256 usdcAmount,
        uint256 nextEligibleAt
    );

    /// @notice Emitted when ETH arrives by plain transfer.
    event Funded(address indexed from, uint256 amount);

    /// @notice Emitted when the admin withdraws ETH.
    event EthWithdrawn(address indexed to, uint256 amount);

    /// @notice Emitted when the admin withdraws an ERC-20 token.
    event TokenWithdrawn(address indexed token, address indexed to, uint256 amount);

    /// @notice Emitted when the admin changes the drip amounts.
    event DripAmountsSet(uint256 ethAmount, uint256 usdcAmount);

    /// @notice Emitted when the admin changes the cooldown (seconds).
    event CooldownSet(uint256 cooldown);

    /// @notice Emitted when the admin sets the ETH and USDC budgets per window and the window length (seconds).
    event BudgetSet(uint256 ethBudget, uint256 usdcBudget, uint256 budgetPeriod);

    /// @notice Thrown when a drip of `amount` (`"eth"` or `"usdc"`) would exceed the window's budget: `available` is
    ///         left until `resetsAt`.
    error FaucetBudgetExceeded(string asset, uint256 amount, uint256 available, uint256 resetsAt);

    /// @notice Thrown when the budget window is set outside [min, max] seconds.
    error FaucetBudgetPeriodOutOfBounds(uint256 value, uint256 min, uint256 max);

    /// @notice Thrown when `recipient` received a drip less than one cooldown ago; it may receive at `nextEligibleAt`.
    error FaucetCooldown(address recipient, uint256 nextEligibleAt);

    /// @notice Thrown when the faucet holds `balance` wei, less than the `amount` it must send.
    error FaucetInsufficientEth(uint256 balance, uint256 amount);

    /// @notice Thrown when the faucet (not a USDC minter) holds `balance` units, less than the `amount` it must send.
    error FaucetInsufficientUsdc(uint256 balance, uint256 amount);

    /// @notice Thrown when sending ETH to `to` failed.
    error FaucetEthTransferFailed(address to, uint256 amount);

    /// @notice Thrown when the recipient is the zero address.
    error FaucetZeroAddress();

    /// @notice Thrown when an amount (`"eth"`, `"usdc"`, `"ethBudget"` or `"usdcBudget"`) is set above its `max`.
    error FaucetAmountOutOfBounds(string asset, uint256 value, uint256 max);

    /// @notice Thrown when a USDC amount is set but the faucet has no USDC token.
    error FaucetNoUsdc();

    /// @notice Thrown when the cooldown is set outside [min, max] seconds.
    error FaucetCooldownOutOfBounds(uint256 value, uint256 min, uint256 max);

    /// @notice Sends `ethAmount` wei and `usdcAmount` USDC units to `recipient` and starts its cooldown.
    /// @dev DRIPPER_ROLE only. USDC is minted when the faucet is a minter of the deployment's test USDC, otherwise
    ///      sent from its balance; it is skipped when the USDC amount is zero. Reverts with `FaucetBudgetExceeded` when
    ///      the window's ETH or USDC budget has less left than the drip.
    /// @return ethSent Wei sent.
    /// @return usdcSent USDC units sent.
    function drip(address recipient) external returns (uint256 ethSent, uint256 usdcSent);

    /// @notice Sets the ETH (at most 1 ether) and USDC (at most 10,000 USDC) drip amounts. DEFAULT_ADMIN_ROLE only.
    function setDripAmounts(uint256 ethAmount, uint256 usdcAmount) external;

    /// @notice Sets the per-recipient cooldown, 1 minute to 30 days. DEFAULT_ADMIN_ROLE only. Applies to past drips
    ///         too (the next eligible time is always last drip + current cooldown).
    function setCooldown(uint256 cooldown) external;

    /// @notice Sets the ETH (at most 100 ether) and USDC (at most 1,000,000 USDC) budgets per window and the window
    ///         length (1 hour to 30 days), starting a new window now that keeps what the current one sent.
    ///         DEFAULT_ADMIN_ROLE only.
    function setBudget(uint256 ethBudget, uint256 usdcBudget, uint256 budgetPeriod) external;

    /// @notice ETH and USDC the current window's drips may still send, and when the next window starts.
    function budgetLeft() external view returns (uint256 eth, uint256 usdcLeft, uint256 resetsAt);

    /// @notice Wei all drips of one window may send.
    function ethBudget() external view returns (uint256);

    /// @notice USDC units all drips of one window may send.
    function usdcBudget() external view returns (uint256);

    /// @notice Budget window length in seconds.
    function budgetPeriod() external view returns (uint256);

    /// @notice Sends `amount` wei to `to`. DEFAULT_ADMIN_ROLE only.
    function withdrawEth(address payable to, uint256 amount) external;

    /// @notice Sends `amount` of `token` to `to`. DEFAULT_ADMIN_ROLE only.
    function withdrawToken(address token, address to, uint256 amount) external;

    /// @notice When `recipient` may receive its next drip (Unix seconds); 0 if it never received one.
    function nextEligibleAt(address recipient) external view returns (uint256);

    /// @notice Timestamp of `recipient`'s last drip (0 if none).
    function lastDripAt(address recipient) external view returns (uint256);

    /// @notice Wei sent per drip.
    function ethAmount() external view returns (uint256);

    /// @notice USDC units sent per drip (0: no USDC).
    function usdcAmount() external view returns (uint256);

    /// @notice Seconds between two drips to the same recipient.
    function cooldown() external view returns (uint256);

    /// @notice The USDC token dripped (zero address: none).
    function usdc() external view returns (address);

    /// @notice Whether USDC is minted (true) or sent from the faucet's balance (false).
    function usdcMintable() external view returns (bool);
}
