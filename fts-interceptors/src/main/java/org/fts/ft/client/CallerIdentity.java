package org.fts.ft.client;

import java.util.function.Supplier;

/**
 * The FT_REQUEST identity of calls a replicated servant makes (nested invocations). While a replica executes an
 * ordered request, the group adaptor sets the caller's identity for its thread: a client id made of the group and the
 * incoming request's id, the same on every replica. Each call to an object group the servant makes then carries that
 * client id and its index within the request (1, 2, ...) as FT_REQUEST, so every replica's copy of the call has the
 * same identity, and a replicated callee executes it once, whichever replicas' copies reach it (its reply cache
 * answers the others). Outside such a request, and for the ORB's built-in operations ({@code _is_a}, ...), calls carry
 * the client ORB's own identity. A servant's call to its own group is refused ({@code BAD_INV_ORDER}): it would wait
 * for a request that only its own execution thread could execute.
 *
 * <p>Guarantee: for the same incoming request and a deterministic servant, the n-th call to an object group has the
 * same FT_REQUEST client id and retention id on every replica. Calls to objects that are not groups carry no
 * FT_REQUEST, as any call of an FT client.
 */
public final class CallerIdentity {
    private static final ThreadLocal<CallerIdentity> CURRENT = new ThreadLocal<>();

    private final String group;
    private final String clientId;
    private final java.util.Map<String, Integer> calls = new java.util.HashMap<>();

    private CallerIdentity(String group, String clientId) {
        this.group = group;
        this.clientId = clientId;
    }

    /**
     * Runs {@code body} with the caller identity of incoming request {@code requestClientId}/{@code requestRetention}
     * of group {@code group} on this thread.
     */
    public static <T> T within(String group, String requestClientId, long requestRetention, Supplier<T> body) {
        CallerIdentity outer = CURRENT.get();
        CURRENT.set(new CallerIdentity(group, "fts-nested/" + group + "/" + requestClientId + "/" + requestRetention));
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

    /** The group whose request this thread executes. */
    public String group() {
        return group;
    }

    /**
     * The FT_REQUEST client id of the request's calls of {@code kind} (a target and an operation): each kind counts its
     * own calls, so that a call one replica makes alone (a lazy {@code _is_a}, say) shifts no other call's identity.
     */
    public String clientId(String kind) {
        return clientId + "/" + kind;
    }

    /** The next index of the request's calls of {@code kind}, from 1. */
    public int nextCall(String kind) {
        return calls.merge(kind, 1, Integer::sum);
    }
}
