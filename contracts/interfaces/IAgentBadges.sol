// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IAgentBadges
/// @notice Non-transferable ERC-721 badges (ERC-5192 "locked") that the service mints to an agent wallet when the
///         agent reaches a tier milestone; at most one badge per milestone per wallet.
interface IAgentBadges {
    /// @notice Tier milestones, in tier order (the API names: registered, established, core_contributor).
    enum Milestone {
        Registered,
        Established,
        CoreContributor
    }

    /// @notice One badge as the API shows it.
    struct Badge {
        uint256 tokenId;
        Milestone milestone;
        uint256 mintedAt;
    }

    /// @notice ERC-5192: emitted at mint, since every badge is locked for life.
    event Locked(uint256 tokenId);

    /// @notice Emitted when `minter` awards `milestone` to `agent` as token `tokenId`.
    event BadgeMinted(address indexed agent, uint256 indexed tokenId, Milestone indexed milestone, address minter);

    /// @notice Thrown when `agent` already holds the badge of `milestone` (token `tokenId`).
    error BadgeAlreadyAwarded(address agent, Milestone milestone, uint256 tokenId);

    /// @notice Thrown on any transfer or approval of token `tokenId`: badges are bound to the wallet.
    error BadgeSoulbound(uint256 tokenId);

    /// @notice Thrown when a badge is minted to the zero address.
    error BadgeZeroAddress();

    /// @notice Mints the badge of `milestone` to `agent`. MINTER_ROLE only (the service relayer).
    /// @return tokenId The new token id (sequential from 1).
    function mint(address agent, Milestone milestone) external returns (uint256 tokenId);

    /// @notice Token id of `agent`'s badge for `milestone`, 0 if none.
    function badgeOf(address agent, Milestone milestone) external view returns (uint256);

    /// @notice All badges `agent` holds, in milestone order.
    function badgesOf(address agent) external view returns (Badge[] memory);

    /// @notice ERC-5192: always true for an existing token (reverts for an unknown one).
    function locked(uint256 tokenId) external view returns (bool);

    /// @notice Number of badges minted so far (also the highest token id).
    function totalMinted() external view returns (uint256);
}
