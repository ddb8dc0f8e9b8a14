package org.fts.goa.intake;

/**
 * The outcome of executing a request on one replica: the marshalled result or user exception, or a system
 * exception (also marshalled). Every replica computes the same reply for the same request.
 */
public record Reply(Kind kind, byte[] body) {
    /** What the body holds. */
    public enum Kind { NORMAL, USER_EXCEPTION, SYSTEM_EXCEPTION, NONE }

    /** A oneway request's outcome: nothing to send. */
    public static final Reply NONE = new Reply(Kind.NONE, new byte[0]);
}
