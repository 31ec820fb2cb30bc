// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {NapVault} from "../../contracts/vaults/NapVault.sol";
import {INapVault} from "../../contracts/interfaces/INapVault.sol";
import {MockUSDC} from "../../contracts/test/MockUSDC.sol";
import {SymTest} from "./Svm.sol";

/// @notice Symbolic proofs (halmos) that NapVault's conversions and previews never round in the holder's favour,
///         at every price: the holders' assets A and totalSupply S are written straight into the vault's storage
///         as any values within the bounds (the price depends on nothing else), and the storage layout is checked
///         through the vault's own getters first.
contract VaultRoundingSymbolicTest is SymTest {
    uint256 internal constant SLOT_HOT = 8;
    /// @dev NapVault's SupplyState: the supply in its low 128 bits.
    uint256 internal constant SLOT_SUPPLY = 17;
    uint256 internal constant NO_CAP = type(uint32).max;

    NapVault internal vault;

    function setUp() public {
        MockUSDC usdc = new MockUSDC();
        INapVault.VaultParams memory params = INapVault.VaultParams({
            asset: IERC20(address(usdc)),
            name: "NAP Aggressive",
            symbol: "napAGG",
            riskLevel: INapVault.RiskLevel.AGGRESSIVE,
            asyncRedeem: false,
            managementFeeBps: 200,
            performanceFeeBps: 2000,
            hurdleRateBps: 800,
            depositCap: type(uint256).max,
            profitUnlockPeriod: 1 days,
            fulfillmentDelay: 0,
            feeRecipient: address(0xFEE)
        });
        INapVault.VaultRoles memory roles = INapVault.VaultRoles(address(this), address(0), address(0), address(0), address(0));
        vault = new NapVault(params, roles, new INapVault.Allocation[](0));
    }

    /// @dev Holders' assets `assets` (nothing locked, fees to date) and totalSupply `supply`.
    function _price(uint256 assets, uint256 supply) internal {
        vm.assume(assets < 2 ** 64 && supply < 2 ** 96);
        uint256 raw = (block.timestamp << 224) | (assets << 160) | (NO_CAP << 128) | (uint256(200) << 118);
        vm.store(address(vault), bytes32(SLOT_HOT), bytes32(raw));
        uint256 rates = uint256(vm.load(address(vault), bytes32(SLOT_SUPPLY))) & ~uint256(type(uint128).max);
        vm.store(address(vault), bytes32(SLOT_SUPPLY), bytes32(rates | supply));
        assert(vault.totalAssets() == assets && vault.totalSupply() == supply);
    }

    /// @notice Assets -> shares -> assets (deposit, then value of the shares) never gains. The non-linear steps
    ///         are instances of the lemmas of MathLemmas.t.sol, assumed as implications (bounds => conclusion) on
    ///         the very products and quotients the vault's two mulDiv calls compute: each mulDiv stays in its
    ///         256-bit branch (check_mul512NarrowLeft, check_mul512NarrowRight), shares * (A + 1) <= x * (S + 10^6)
    ///         (check_divMulAtMost), dividing both by S + 10^6 keeps the order (check_divMonotonic) and
    ///         x * (S + 10^6) / (S + 10^6) = x (check_mulDivCancels). The rest the solver checks here.
    function check_depositRoundTrip(uint256 assets, uint256 supply, uint256 x) public {
        _price(assets, supply);
        vm.assume(x < 2 ** 64);
        uint256 a = vault.totalAssets() + 1;
        uint256 s = vault.totalSupply() + 1e6;
        (uint256 h1, uint256 l1) = Math.mul512(x, s);
        vm.assume(!(x < 2 ** 64 && s < 2 ** 97) || (h1 == 0 && l1 < 2 ** 161));
        uint256 shares = vault.previewDeposit(x);
        (uint256 h2, uint256 l2) = Math.mul512(shares, a);
        vm.assume(!(shares < 2 ** 161 && a < 2 ** 65) || h2 == 0);
        vm.assume(!(a > 0 && shares == l1 / a) || l2 <= l1);
        vm.assume(!(l2 <= l1 && s > 0) || l2 / s <= l1 / s);
        vm.assume(!(x < 2 ** 64 && s > 0 && s < 2 ** 97) || l1 / s == x);
        assert(vault.convertToAssets(shares) <= x);
    }

    /// @notice Shares bought with previewMint are never worth more than they cost, nor fewer than asked.
    function check_mintRoundTrip(uint256 assets, uint256 supply, uint256 s) public {
        _price(assets, supply);
        vm.assume(s < 2 ** 96);
        uint256 cost = vault.previewMint(s);
        assert(cost >= vault.convertToAssets(s));
        assert(vault.convertToShares(cost) >= s);
    }

    /// @notice A withdraw of `x` burns at least the shares `x` would buy.
    function check_withdrawRoundTrip(uint256 assets, uint256 supply, uint256 x) public {
        _price(assets, supply);
        vm.assume(x < 2 ** 64);
        assert(vault.previewWithdraw(x) >= vault.convertToShares(x));
    }

    /// @notice A redeem of `s` pays at most what minting `s` back would cost.
    function check_redeemRoundTrip(uint256 assets, uint256 supply, uint256 s) public {
        _price(assets, supply);
        vm.assume(s < 2 ** 96);
        assert(vault.previewRedeem(s) <= vault.convertToAssets(s));
        assert(vault.previewMint(s) >= vault.previewRedeem(s));
    }
}
