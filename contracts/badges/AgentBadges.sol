// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IAgentBadges} from "../interfaces/IAgentBadges.sol";

/// @title AgentBadges
/// @notice Soulbound tier badges for agent wallets, with onchain JSON metadata (base64 data URI, SVG image).
/// @dev Invariants: a token never changes owner after mint (`_update` refuses any move but a mint); each (agent,
///      milestone) pair has at most one token; token ids are 1..totalMinted.
contract AgentBadges is ERC721, AccessControl, IAgentBadges {
    using Strings for uint256;

    /// @notice The service relayer: the only account that may mint.
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    struct Info {
        Milestone milestone;
        uint64 mintedAt;
    }

    uint256 private _totalMinted;
    mapping(uint256 tokenId => Info) private _info;
    mapping(address agent => mapping(Milestone => uint256 tokenId)) private _badgeOf;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the timelock once wired).
    constructor(address admin) ERC721("NAP Agent Badge", "NAPBADGE") {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    /// @inheritdoc IAgentBadges
    function mint(address agent, Milestone milestone) external onlyRole(MINTER_ROLE) returns (uint256 tokenId) {
        if (agent == address(0)) revert BadgeZeroAddress();
        uint256 existing = _badgeOf[agent][milestone];
        if (existing != 0) revert BadgeAlreadyAwarded(agent, milestone, existing);
        tokenId = ++_totalMinted;
        _badgeOf[agent][milestone] = tokenId;
        _info[tokenId] = Info({milestone: milestone, mintedAt: uint64(block.timestamp)});
        _mint(agent, tokenId);
        emit Locked(tokenId);
        emit BadgeMinted(agent, tokenId, milestone, msg.sender);
    }

    /// @inheritdoc IAgentBadges
    function badgeOf(address agent, Milestone milestone) external view returns (uint256) {
        return _badgeOf[agent][milestone];
    }

    /// @inheritdoc IAgentBadges
    function badgesOf(address agent) external view returns (Badge[] memory badges) {
        badges = new Badge[](balanceOf(agent));
        uint256 n;
        for (uint8 m = 0; m <= uint8(Milestone.CoreContributor); ++m) {
            uint256 tokenId = _badgeOf[agent][Milestone(m)];
            if (tokenId != 0) badges[n++] = Badge(tokenId, Milestone(m), _info[tokenId].mintedAt);
        }
    }

    /// @inheritdoc IAgentBadges
    function locked(uint256 tokenId) external view returns (bool) {
        _requireOwned(tokenId);
        return true;
    }

    /// @inheritdoc IAgentBadges
    function totalMinted() external view returns (uint256) {
        return _totalMinted;
    }

    /// @notice JSON metadata of `tokenId` as a base64 data URI, with an SVG image; reverts for an unknown token.
    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        address agent = _requireOwned(tokenId);
        Info memory info = _info[tokenId];
        string memory label = _label(info.milestone);
        string memory svg = string.concat(
            "<svg xmlns='http://www.w3.org/2000/svg' width='320' height='320' viewBox='0 0 320 320'>",
            "<rect width='320' height='320' rx='24' fill='#0b1d2a'/>",
            "<text x='160' y='140' font-family='monospace' font-size='22' fill='#f5c542' text-anchor='middle'>",
            "NAP</text>",
            "<text x='160' y='185' font-family='monospace' font-size='18' fill='#ffffff' text-anchor='middle'>",
            label,
            "</text></svg>"
        );
        // JSON needs double quotes inside its literals; prettier keeps such literals single-quoted.
        // solhint-disable quotes
        string memory json = string.concat(
            '{"name":"NAP Agent Badge #',
            tokenId.toString(),
            ": ",
            label,
            '","description":"Non-transferable badge for an agent that reached the ',
            label,
            ' tier milestone on NAP.","image":"data:image/svg+xml;base64,',
            Base64.encode(bytes(svg)),
            '","attributes":[{"trait_type":"milestone","value":"',
            label,
            '"},{"trait_type":"agent","value":"',
            Strings.toHexString(agent),
            '"},{"display_type":"date","trait_type":"minted_at","value":',
            uint256(info.mintedAt).toString(),
            "}]}"
        );
        // solhint-enable quotes
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }

    /// @notice ERC-165: ERC-721, metadata, AccessControl and ERC-5192 (0xb45a3c0e).
    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return interfaceId == 0xb45a3c0e || super.supportsInterface(interfaceId);
    }

    /// @notice Always reverts with `BadgeSoulbound`: a badge can never move, so an approval could only mislead.
    function approve(address, uint256 tokenId) public pure override {
        revert BadgeSoulbound(tokenId);
    }

    /// @notice Always reverts with `BadgeSoulbound(0)`, for the same reason as `approve`.
    function setApprovalForAll(address, bool) public pure override {
        revert BadgeSoulbound(0);
    }

    /// @dev Only mints pass: any transfer or burn reverts with `BadgeSoulbound`.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = _ownerOf(tokenId);
        if (from != address(0)) revert BadgeSoulbound(tokenId);
        return super._update(to, tokenId, auth);
    }

    function _label(Milestone milestone) private pure returns (string memory) {
        if (milestone == Milestone.Registered) return "registered";
        if (milestone == Milestone.Established) return "established";
        return "core_contributor";
    }
}
