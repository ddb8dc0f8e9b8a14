package org.fts.ft.client;

import java.util.function.Supplier;

/**
 * The FT_REQUEST identity of calls a replicated servant makes (nested invocations). While a replica executes an
 * ordered request, the group adaptor sets the caller's identity for its thread: a client id made of the group and the
 * incoming request's id, the same on every replica. Each call to an object group the servant makes then carries that
 * client id and its index within the request (1, 2, ...) as FT_REQUEST, so every replica's copy of the call has the
 * same identity, and a replicated callee executes it once, whichever replicas' copies reach it (its reply cache
 * answers the others). Outside such a request, calls carry the client ORB's own identity.
 *
 * <p>Guarantee: for the same incoming request and a deterministic servant, the n-th call to an object group has the
 * same FT_REQUEST client id and retention id on every replica. Calls to objects that are not groups carry no
 * FT_REQUEST, as any call of an FT client.
 */
public final class CallerIdentity {
    private static final ThreadLocal<CallerIdentity> CURRENT = new ThreadLocal<>();

    private final String clientId;
    private int calls;

    private CallerIdentity(String clientId) {
        this.clientId = clientId;
    }

    /**
     * Runs {@code body} with the caller identity of incoming request {@code requestClientId}/{@code requestRetention}
     * of group {@code group} on this thread.
     */
    public static <T> T within(String group, String requestClientId, long requestRetention, Supplier<T> body) {
        CallerIdentity outer = CURRENT.get();
        CURRENT.set(new CallerIdentity("fts-nested/" + group + "/" + requestClientId + "/" + requestRetention));
        try {
            return body.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /** This thread's caller identity, or null outside an ordered request. */
    public static CallerIdentity current() {
        return CURRENT.get();
    }

    /** The FT_REQUEST client id of the request's calls. */
    public String clientId() {
        return clientId;
    }

    /** The next call's index within the request, from 1 (calls to object groups and to plain objects alike). */
    public int nextCall() {
        return ++calls;
    }
}
