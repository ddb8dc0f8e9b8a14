package org.fts.goa.intake;

import java.util.List;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.fts.ft.FtRequestContext;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.CompletionStatus;
import org.omg.IOP.ServiceContext;

/**
 * Stage 2: what an FT-CORBA client says about its request. FT_REQUEST (client_id, retention_id) is the
 * request's identity, the same across every reinvocation; FT_GROUP_VERSION is the group version the client
 * knows. Malformed contexts are this client's error ({@code MARSHAL}/{@code BAD_PARAM}). Plain clients send
 * neither: the replica makes up an id unique to its incarnation.
 *
 * @param id            null for a plain client
 * @param clientVersion -1 when not sent
 */
public record FtContexts(RequestId id, long expirationMillis, long clientVersion) {
    static final FtContexts NONE = new FtContexts(null, 0, -1);
    /** The longest FT_REQUEST client_id accepted, in characters: every reply cached for it carries it. */
    static final int MAX_CLIENT_ID = 1024;

    public static FtContexts of(List<ServiceContext> contexts) {
        RequestId id = null;
        long expiration = 0;
        long version = -1;
        for (ServiceContext sc : contexts) {
            if (sc.context_id == FtConstants.FT_REQUEST) {
                FtRequestContext ft = FtRequestContext.decode(sc.context_data);
                if (ft.clientId().length() > MAX_CLIENT_ID) {
                    throw new BAD_PARAM("FTS: an FT_REQUEST client_id of " + ft.clientId().length()
                            + " characters; at most " + MAX_CLIENT_ID + " are accepted", 0, CompletionStatus.COMPLETED_NO);
                }
                id = new RequestId(ft.clientId(), ft.retentionId());
                expiration = FtRequestContext.epochMillis(ft.expirationTime());
            } else if (sc.context_id == FtConstants.FT_GROUP_VERSION) {
                version = FtGroupVersionContext.decode(sc.context_data).version();
            }
        }
        return id == null && version < 0 ? NONE : new FtContexts(id, expiration, version);
    }
}
