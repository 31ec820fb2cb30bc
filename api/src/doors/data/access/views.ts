import { keyState, type DataKeyRecord } from "../../../usecases/dataKeys/keys";
import { nodeStatus, SELF_REGISTRANT, type NodeRecord } from "../../../usecases/nodes";

/** The access routes' wire views of keys and nodes (docs/data-api-access.md). */

/** The public view of a key (never its hash). */
export function describeKey(record: DataKeyRecord, now: Date) {
  return {
    key_id: record.keyId,
    key_prefix: record.keyPrefix,
    name: record.name,
    owner: record.owner,
    tier: record.tier,
    scopes: record.scopes,
    issued_by: record.issuedBy,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt.toISOString(),
    revoked_at: record.revokedAt ? record.revokedAt.toISOString() : null,
    state: keyState(record, now),
  };
}

export function describeNode(record: NodeRecord, now: Date) {
  return {
    node_id: record.nodeId,
    role: record.role,
    version: record.version,
    url: record.url,
    status: nodeStatus(record, now),
    started_at: record.startedAt.toISOString(),
    last_heartbeat_at: record.lastHeartbeatAt.toISOString(),
    external: record.registeredBy !== SELF_REGISTRANT,
  };
}
