// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title INapMinter
/// @notice Rate-limited minting of NAP for a hot key. The minter is the only holder of NapToken's MINTER_ROLE; the
///         service relayer holds the minter's own MINTER_ROLE and mints the tier-`established` grants through it, at
///         most `budget` NAP in each window of `period` seconds. Governance (DEFAULT_ADMIN_ROLE, the timelock) sets
///         the budget and the period, so a stolen relayer key can mint no more than the budget per period.
/// @dev Windows are fixed: window i covers [start + i * period, start + (i + 1) * period), where `start` is the
///      deployment time or the time of the last `setBudget`. Invariant: the NAP minted through this contract inside
///      one window never exceeds the budget in force at each of its mints; hence over any interval of length T at
///      most budget * (ceil(T / period) + 1).
interface INapMinter {
    /// @notice Emitted when `minter` mints `amount` NAP for `to`; `mintedInWindow` includes it.
    event GrantMinted(address indexed minter, address indexed to, uint256 amount, uint256 mintedInWindow);

    /// @notice Emitted when governance sets the budget (NAP per window) and the window length (seconds).
    event BudgetSet(uint256 budget, uint256 period);

    /// @notice Thrown when minting `amount` would exceed the window's budget: `available` is left until `resetsAt`.
    error NapMinterBudgetExceeded(uint256 amount, uint256 available, uint256 resetsAt);

    /// @notice Thrown when the window length is set outside [min, max] seconds.
    error NapMinterPeriodOutOfBounds(uint256 period, uint256 min, uint256 max);

    /// @notice Thrown when the budget is set above `max` (NAP base units per window).
    error NapMinterBudgetOutOfBounds(uint256 budget, uint256 max);

    /// @notice Mints `amount` NAP (18 decimals) for `to` through NapToken, within the current window's budget.
    /// @dev MINTER_ROLE (the service relayer) only. Same signature as `NapToken.mint`, so a caller switches by address.
    ///      Reverts with `NapMinterBudgetExceeded` above the budget, and with the token's errors (cap, zero address).
    function mint(address to, uint256 amount) external;

    /// @notice Sets the budget (NAP base units per window) and the window length (seconds), starting a new window
    ///         now that keeps what was minted in the current one. DEFAULT_ADMIN_ROLE (the timelock) only.
    function setBudget(uint256 newBudget, uint256 newPeriod) external;

    /// @notice The NAP token minted.
    function token() external view returns (address);

    /// @notice NAP base units that may be minted per window.
    function budget() external view returns (uint256);

    /// @notice Window length in seconds.
    function period() external view returns (uint256);

    /// @notice Start of the current window (Unix seconds), as of now.
    function windowStart() external view returns (uint256);

    /// @notice NAP minted in the current window, as of now (0 once the window has passed).
    function mintedInWindow() external view returns (uint256);

    /// @notice NAP that may still be minted in the current window, and when the next window starts.
    function available() external view returns (uint256 amount, uint256 resetsAt);
}
