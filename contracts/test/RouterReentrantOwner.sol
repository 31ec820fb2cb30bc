// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {ITokenSender} from "./HookUSDC.sol";

/// @title RouterReentrantOwner
/// @notice Tests only: a contract wallet (EIP-1271, its key's signatures) that, when its HookUSDC tokens are about
///         to move, calls back into the router with a call prepared beforehand (a second signed message) and keeps
///         what the router answered, so a test can show the router refuses to be entered twice.
contract RouterReentrantOwner is IERC1271, ITokenSender {
    /// @notice The key that signs for this wallet.
    address public immutable key;
    /// @notice The router the hook calls.
    address public router;
    /// @notice Calldata of the reentrant call.
    bytes public reentry;
    /// @notice Whether the hook made its call.
    bool public attempted;
    /// @notice Whether the reentrant call succeeded.
    bool public succeeded;
    /// @notice The reentrant call's revert data (or return data).
    bytes public answer;

    /// @param key_ The externally owned account that signs for this wallet.
    constructor(address key_) {
        key = key_;
    }

    /// @notice Calls `callee` with `data` from the wallet (an approval of the router, HookUSDC's registration).
    /// @param callee Called contract.
    /// @param data Calldata.
    function execute(address callee, bytes calldata data) external {
        Address.functionCall(callee, data);
    }

    /// @notice Sets the call the hook makes on the next transfer of the wallet's tokens.
    /// @param routerAddress The router.
    /// @param data Calldata of the reentrant call.
    function arm(address routerAddress, bytes calldata data) external {
        router = routerAddress;
        reentry = data;
    }

    /// @inheritdoc ITokenSender
    function tokensToSend(address, uint256) external {
        if (router == address(0) || attempted) return;
        attempted = true;
        // The raw call keeps the router's revert data for the test to read.
        // solhint-disable-next-line avoid-low-level-calls
        (succeeded, answer) = router.call(reentry);
    }

    /// @notice EIP-1271: 0x1626ba7e when `signature` is the key's signature of `hash`.
    /// @param hash The signed digest.
    /// @param signature A 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e if valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4 magicValue) {
        (address recovered, ECDSA.RecoverError error, ) = ECDSA.tryRecover(hash, signature);
        if (error == ECDSA.RecoverError.NoError && recovered == key) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }
}
