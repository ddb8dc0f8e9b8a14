package org.fts.batching;

/** What a {@link BatchPolicy} may look at when it decides. All times are {@link Clock} nanoseconds. */
public interface BatchState {
    /** Messages in the current (unsent) batch. */
    int pending();

    /** Threads inside the doorway: entered, not yet cast. */
    int inside();

    /** This member's batches sent and not yet delivered back. */
    int inFlight();

    /** When the first message of the current batch was cast (meaningless if {@code pending() == 0}). */
    long firstCastNanos();

    /** When the latest message of the current batch was cast. */
    long lastCastNanos();
}
