package org.fts.batching;

/**
 * Decides when the current batch is sent. A policy is called with the batcher's lock held, must be quick,
 * and never blocks; it keeps whatever state it needs (one policy instance per batcher). Chosen by alias in
 * {@code fts.batching} ({@link BatchPolicies}).
 */
public interface BatchPolicy {
    /** After a message joined the batch (its thread has left the doorway): send now? */
    boolean afterCast(BatchState s, long now);

    /** When the batcher's sender thread should next call {@link #onTimer}: an absolute time, or never. */
    default long nextCheck(BatchState s, long now) {
        return Long.MAX_VALUE;
    }

    /** At (or after) {@link #nextCheck}: send the pending batch now? */
    default boolean onTimer(BatchState s, long now) {
        return false;
    }

    /** A batch of {@code messages} was just sent. */
    default void onSent(BatchState s, int messages, long now) {
    }

    /** One of this member's batches was delivered back: send the pending batch now? */
    default boolean onDelivered(BatchState s, long now) {
        return false;
    }

    /** The alias and parameters, for logs and stats, e.g. {@code tab(doorway=500us)}. */
    String describe();
}
