package org.fts.gc;

/**
 * A position of the delivery order at which a member with a log ({@code fts.durability=log}) asks its application
 * for its state, so that the log behind it can be dropped (docs/durability.md, "Checkpoints"). Handed to
 * {@link GroupListener#checkpointDue} on the delivery thread, between the broadcast at {@link #position()} and the
 * next one: a state taken then, at a cut of the application's execution (everything delivered before executed,
 * nothing after), is the state at that position.
 *
 * <p>Guarantees: once {@link #save} returns, the state is being written; once written and synced, a restart of
 * this member starts from it ({@link GroupListener#restore}) and replays only the log after it, and the log is
 * compacted behind the previous checkpoint (kept as the fallback should the newest be damaged). At most one
 * checkpoint is outstanding per member: the next is offered only after this one was saved or skipped.
 */
public interface Checkpoint {

    /** The position of the last broadcast delivered before this checkpoint (0: none). */
    long position();

    /** Persists {@code state}, the application's state at {@link #position()}; any thread, once. */
    void save(byte[] state);

    /** The application cannot give its state now ({@code why}, for the log); a later checkpoint is offered. */
    void skip(String why);
}
