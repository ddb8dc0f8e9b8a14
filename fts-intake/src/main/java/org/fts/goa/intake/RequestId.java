package org.fts.goa.intake;

/**
 * A request's identity across retries and replicas: FT-CORBA's (client_id, retention_id) when the client sent
 * FT_REQUEST, otherwise one the receiving replica made up (unique, but a retry of it is a new request).
 */
public record RequestId(String clientId, long retentionId) {
    @Override
    public String toString() {
        return clientId + "#" + retentionId;
    }
}
