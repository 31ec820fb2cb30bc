// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SymTest} from "./Svm.sol";

/// @notice Lemmas of integer arithmetic and of OpenZeppelin's Math.mul512 (which Math.mulDiv starts with), each
///         proven here for every input within its stated bounds. The vault proofs assume instances of them (as
///         implications: bounds => conclusion) instead of asking the solver to redo the non-linear reasoning on
///         the vault's 256- and 512-bit products, so a vault proof that uses one stands on this one.
/// @dev The two 512-bit lemmas are bit-level facts (the solver's default, yices, settles them); the division lemmas
///      are non-linear facts of integers, proven with cvc5 reading bit-vectors as integers (`solver=cvc5-int` in
///      scripts/prove/proofs.txt).
contract MathLemmasTest is SymTest {
    /// @notice Below 2^64 times below 2^97, the 512-bit product has no high word and its low word is below 2^161:
    ///         mulDiv of a deposit's or an exit's amounts never takes its 512-bit branch.
    function check_mul512NarrowLeft(uint256 a, uint256 b) public pure {
        vm.assume(a < 2 ** 64 && b < 2 ** 97);
        (uint256 high, uint256 low) = Math.mul512(a, b);
        assert(high == 0 && low < 2 ** 161);
    }

    /// @notice Below 2^161 times below 2^65, the 512-bit product has no high word.
    function check_mul512NarrowRight(uint256 a, uint256 b) public pure {
        vm.assume(a < 2 ** 161 && b < 2 ** 65);
        (uint256 high, ) = Math.mul512(a, b);
        assert(high == 0);
    }

    /// @notice A quotient rounded down, multiplied back, never exceeds the dividend.
    function check_divMulAtMost(uint256 n, uint256 d) public pure {
        vm.assume(d > 0);
        unchecked {
            assert((n / d) * d <= n);
        }
    }

    /// @notice Division rounded down is monotonic in the dividend.
    function check_divMonotonic(uint256 m, uint256 n, uint256 d) public pure {
        vm.assume(m <= n && d > 0);
        assert(m / d <= n / d);
    }

    /// @notice A product that does not overflow divided by one factor gives back the other.
    function check_mulDivCancels(uint256 x, uint256 y) public pure {
        vm.assume(x < 2 ** 64 && y > 0 && y < 2 ** 97);
        unchecked {
            assert((x * y) / y == x);
        }
    }

    /// @notice A pro-rata share of `t` (with the vault's virtual share and asset) for at most all `s` shares is at
    ///         most `t`: a fill never pays more than the holders' assets.
    function check_proRataAtMost(uint256 x, uint256 s, uint256 t) public pure {
        vm.assume(x <= s && s < 2 ** 96 && t < 2 ** 64);
        unchecked {
            assert((x * (t + 1)) / (s + 1e6) <= t);
        }
    }
}
