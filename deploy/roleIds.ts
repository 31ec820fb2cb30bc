import { ZeroHash, id } from "ethers";

/**
 * The AccessControl role identifiers the system uses, by name. Each contract defines its roles as
 * `keccak256("<NAME>")` (OpenZeppelin's convention; DEFAULT_ADMIN_ROLE is zero); test/deploy/roleIds.test.ts reads
 * every constant back from the contracts.
 */
export const ROLE_IDS = {
  DEFAULT_ADMIN_ROLE: ZeroHash,
  MINTER_ROLE: id("MINTER_ROLE"),
  PROPOSER_ROLE: id("PROPOSER_ROLE"),
  CANCELLER_ROLE: id("CANCELLER_ROLE"),
  EXECUTOR_ROLE: id("EXECUTOR_ROLE"),
  SCREENER_ROLE: id("SCREENER_ROLE"),
  MANAGER_ROLE: id("MANAGER_ROLE"),
  GUARDIAN_ROLE: id("GUARDIAN_ROLE"),
  ORACLE_ROLE: id("ORACLE_ROLE"),
  DRIPPER_ROLE: id("DRIPPER_ROLE"),
  HARVESTER_ROLE: id("HARVESTER_ROLE"),
  FULFILLER_ROLE: id("FULFILLER_ROLE"),
} as const;

export type RoleName = keyof typeof ROLE_IDS;

/** The name of a role identifier, or the identifier itself when the system defines no such role. */
export function roleName(roleId: string): string {
  const found = Object.entries(ROLE_IDS).find(([, value]) => value === roleId.toLowerCase());
  return found ? found[0] : roleId;
}
