// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title INapMinter
/// @notice Rate-limited minting of NAP for a hot key. The minter is the only holder of NapToken's MINTER_ROLE; the
///         service relayer holds the minter's own MINTER_ROLE and mints the tier-`established` grants through it. A
///         window of `period` seconds mints at most its limit, min(budget, max(S * supplyBps / 10,000, floor - S))
///         where S is the token's total supply when the window opened (the floor lets a token with no supply start),
///         and one recipient at most `recipientBps` of that limit. Governance (DEFAULT_ADMIN_ROLE, the timelock) sets
///         all of them within hard bounds, so a stolen relayer key can add no more than a fixed amount and a fixed
///         share of the votes per window.
/// @dev Windows are fixed: window i covers [start + i * period, start + (i + 1) * period), where `start` is the
///      deployment time or the time of the last `setBudget`. Invariant: the NAP minted through this contract inside
///      one window never exceeds the limit in force at each of its mints (at most the budget), and what one recipient
///      received in it never exceeds `recipientBps` of that limit; hence over any interval of length T at most
///      budget * (ceil(T / period) + 1), and, once the supply is at or above the floor, the supply grows by at most a
///      factor (1 + supplyBps / 10,000) per window.
interface INapMinter {
    /// @notice Emitted when `minter` mints `amount` NAP for `to`; `mintedInWindow` includes it.
    event GrantMinted(address indexed minter, address indexed to, uint256 amount, uint256 mintedInWindow);

    /// @notice Emitted when governance sets the budget (NAP per window) and the window length (seconds).
    event BudgetSet(uint256 budget, uint256 period);

    /// @notice Emitted when governance sets the supply share per window (basis points), the supply floor (NAP base
    ///         units) and the share of a window one recipient may take (basis points).
    event SupplyLimitSet(uint256 supplyBps, uint256 floor, uint256 recipientBps);

    /// @notice Thrown when minting `amount` would exceed the window's limit: `available` is left until `resetsAt`.
    error NapMinterBudgetExceeded(uint256 amount, uint256 available, uint256 resetsAt);

    /// @notice Thrown when minting `amount` for `to` would exceed its share of the window: `available` is left to it
    ///         until `resetsAt`.
    error NapMinterRecipientShareExceeded(address to, uint256 amount, uint256 available, uint256 resetsAt);

    /// @notice Thrown when a supply setting (`"supplyBps"`, `"floor"` or `"recipientBps"`) is set outside [min, max].
    error NapMinterSupplyLimitOutOfBounds(string setting, uint256 value, uint256 min, uint256 max);

    /// @notice Thrown when the window length is set outside [min, max] seconds.
    error NapMinterPeriodOutOfBounds(uint256 period, uint256 min, uint256 max);

    /// @notice Thrown when the budget is set above `max` (NAP base units per window).
    error NapMinterBudgetOutOfBounds(uint256 budget, uint256 max);

    /// @notice Mints `amount` NAP (18 decimals) for `to` through NapToken, within the current window's limit and
    ///         `to`'s share of it.
    /// @dev MINTER_ROLE (the service relayer) only. Same signature as `NapToken.mint`, so a caller switches by address.
    ///      Reverts with `NapMinterBudgetExceeded` above the window's limit, `NapMinterRecipientShareExceeded` above
    ///      `to`'s share, and with the token's errors (cap, zero address).
    function mint(address to, uint256 amount) external;

    /// @notice Sets the budget (NAP base units per window) and the window length (seconds), starting a new window
    ///         now that keeps what was minted in the current one. DEFAULT_ADMIN_ROLE (the timelock) only.
    function setBudget(uint256 newBudget, uint256 newPeriod) external;

    /// @notice Sets the share of the supply a window may mint (1 to 1,000 basis points), the supply floor below
    ///         which a window may mint up to it (at most 100,000 NAP), and the share of a window's limit one recipient
    ///         may take (1 to 10,000 basis points). Applies to the current window. DEFAULT_ADMIN_ROLE only.
    function setSupplyLimit(uint256 newSupplyBps, uint256 newFloor, uint256 newRecipientBps) external;

    /// @notice The NAP token minted.
    function token() external view returns (address);

    /// @notice NAP base units that may be minted per window at most, whatever the supply.
    function budget() external view returns (uint256);

    /// @notice Share of the supply at a window's opening that the window may mint, in basis points.
    function supplyBps() external view returns (uint256);

    /// @notice Supply (NAP base units) below which a window may mint up to it, whatever `supplyBps` allows.
    function floor() external view returns (uint256);

    /// @notice Share of a window's limit one recipient may receive in that window, in basis points.
    function recipientBps() external view returns (uint256);

    /// @notice Window length in seconds.
    function period() external view returns (uint256);

    /// @notice Start of the current window (Unix seconds), as of now.
    function windowStart() external view returns (uint256);

    /// @notice NAP minted in the current window, as of now (0 once the window has passed).
    function mintedInWindow() external view returns (uint256);

    /// @notice The token's total supply when the current window opened (as of now: the current supply once the
    ///         stored window has passed).
    function windowSupply() external view returns (uint256);

    /// @notice What the current window may mint in all: min(budget, max(supply share, floor - supply)).
    function windowLimit() external view returns (uint256);

    /// @notice NAP that may still be minted in the current window, and when the next window starts.
    function available() external view returns (uint256 amount, uint256 resetsAt);

    /// @notice NAP that may still be minted for `recipient` in the current window (its share, within what the window
    ///         has left), and when the next window starts.
    function availableTo(address recipient) external view returns (uint256 amount, uint256 resetsAt);
}
