// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {INapToken} from "../interfaces/INapToken.sol";

/// @title NapToken
/// @notice NAP governance token. Votes are counted on a timestamp clock (ERC-6372 `mode=timestamp`), so the
///         governor's delay and period are in seconds on every chain.
/// @dev Invariants: totalSupply <= cap; an account that never called `delegate` and has ever received tokens is its
///      own delegate (so getVotes(account) == balanceOf(account) for it unless others delegated to it too).
///      The self-delegation is a choice: agents' server wallets receive NAP from the relayer and can vote at the
///      next proposal snapshot without a delegate transaction of their own.
contract NapToken is ERC20, ERC20Permit, ERC20Votes, AccessControl, INapToken {
    /// @notice Role allowed to mint within the cap.
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    uint256 private immutable _cap;

    /// @param admin Receives DEFAULT_ADMIN_ROLE (the timelock once wired).
    /// @param initialHolder Receives `initialSupply` (may be zero only if `initialSupply` is zero).
    /// @param initialSupply Tokens minted at deployment.
    /// @param cap_ Maximum total supply.
    constructor(
        address admin,
        address initialHolder,
        uint256 initialSupply,
        uint256 cap_
    ) ERC20("NAP Governance", "NAP") ERC20Permit("NAP Governance") {
        _cap = cap_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        if (initialSupply > 0) _mintCapped(initialHolder, initialSupply);
    }

    /// @inheritdoc INapToken
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        _mintCapped(to, amount);
        emit NapMinted(msg.sender, to, amount);
    }

    /// @inheritdoc INapToken
    function cap() external view returns (uint256) {
        return _cap;
    }

    /// @notice The voting clock: the block timestamp.
    function clock() public view override returns (uint48) {
        return uint48(block.timestamp);
    }

    /// @notice ERC-6372 description of the clock.
    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public pure override returns (string memory) {
        return "mode=timestamp";
    }

    /// @notice EIP-2612 / vote-by-signature nonce of `owner` (one counter serves both).
    function nonces(address owner) public view override(ERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    function _mintCapped(address to, uint256 amount) private {
        if (to == address(0)) revert NapTokenZeroRecipient();
        uint256 newSupply = totalSupply() + amount;
        if (newSupply > _cap) revert NapTokenCapExceeded(amount, newSupply, _cap);
        _mint(to, amount);
    }

    /// @dev After the balance and vote moves, a recipient without a delegate delegates to itself, which moves its
    ///      whole balance (including this receipt) into its own votes.
    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
        if (to != address(0) && delegates(to) == address(0)) _delegate(to, to);
    }
}
