// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title MockERC1271Wallet
/// @notice Test helper: a contract wallet whose signatures are its owner's ECDSA signatures (EIP-1271).
/// @dev Used by the API tests to register an agent whose wallet is a contract. Not for production.
contract MockERC1271Wallet is IERC1271 {
    /// @notice The key that signs for this wallet.
    address public immutable owner;

    /// @param owner_ The externally owned account whose signatures this wallet accepts.
    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice EIP-1271: returns 0x1626ba7e when `signature` is the owner's signature of `hash`.
    /// @param hash The signed digest (for EIP-191 messages, the personal_sign hash of the message).
    /// @param signature The owner's 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e if valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4 magicValue) {
        (address recovered, ECDSA.RecoverError error, ) = ECDSA.tryRecover(hash, signature);
        if (error == ECDSA.RecoverError.NoError && recovered == owner) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }
}
