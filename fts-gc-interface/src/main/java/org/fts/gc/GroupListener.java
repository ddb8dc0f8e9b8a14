package org.fts.gc;

/**
 * What a {@link GroupChannel} delivers to its application.
 *
 * <p>All callbacks of one channel run on that channel's single delivery thread, one at a time, in the order
 * the channel delivers them; never on a group-communication protocol thread. A callback may call
 * {@link GroupChannel#abcast}, {@link GroupChannel#send}, {@link GroupChannel#synced} and
 * {@link GroupChannel#close} on its own channel.
 *
 * <p>A callback that blocks delays only this member's later callbacks: the group keeps running, the other
 * members keep delivering, this member keeps taking part in the protocol (acknowledging, sequencing, failure
 * detection), and its pending deliveries accumulate in memory until the callback returns (see
 * {@link GroupChannel#pendingDeliveries()}), up to {@code fts.delivery.max_backlog} bytes of broadcasts: past
 * that the member stops queuing broadcasts and falls behind ({@link #fellBehind}). A callback that throws a {@link RuntimeException} is logged and
 * skipped; later deliveries continue. An {@link Error} stops the process ({@link FailStop}).
 *
 * <p>The order of callbacks after a view change: {@link #viewAccepted} at once; then, while the recovery
 * runs, possibly the last committed broadcasts of the previous epoch; then either {@link #epochOpened} (the
 * view is primary: deliveries of the new epoch follow) or {@link #notPrimary} (nothing is delivered until
 * the next view).
 */
public interface GroupListener {

    /**
     * A totally-ordered broadcast ({@link GroupChannel#abcast}) delivered to this member, own messages
     * included.
     *
     * @param sender  the member that called {@code abcast}
     * @param payload the bytes as broadcast; owned by the listener from here on
     */
    void deliver(MemberId sender, byte[] payload);

    /**
     * A point-to-point message ({@link GroupChannel#send}) addressed to this member. The default drops it.
     * Point-to-point messages are FIFO per sender but not ordered with respect to {@code deliver}.
     */
    default void receive(MemberId sender, byte[] payload) {
    }

    /**
     * A new view has been installed at this member. The first callback after a join is always the view
     * that contains the joiner. Deliveries pause until the view's epoch opens.
     */
    void viewAccepted(View view);

    /**
     * The view's recovery established a primary epoch: this member delivers again, from the epoch's first
     * broadcast. If {@link Epoch#gap()} is true, this member's state misses part of the group's history and
     * must be replaced (a state transfer at a position of the order) before the member serves. The default
     * ignores it.
     */
    default void epochOpened(Epoch epoch) {
    }

    /**
     * This member's application fell more than {@code fts.delivery.max_backlog} bytes of broadcasts behind the
     * group, so the member stopped queuing them (or the binding left out broadcasts this member had not delivered,
     * raft: a snapshot took their place): the broadcasts delivered before this callback are a contiguous
     * stretch of the history, those after it continue the history further on, and {@code missed} (at least one)
     * were left out in between. As after an epoch with a {@link Epoch#gap() gap}, the member no longer counts
     * as holding the group's state (it cannot be named as a provider) until the application installs a state
     * taken at a position of the order and calls {@link GroupChannel#synced}; a {@code synced} for a state
     * installed before this callback is ignored. The group goes on at its own pace meanwhile. The default
     * ignores it, for listeners that keep no state.
     */
    default void fellBehind(long missed) {
    }

    /**
     * With a log: this member's application should persist its state at this position of the delivery order (see
     * {@link Checkpoint}). The default skips it (the log then keeps the whole history).
     */
    default void checkpointDue(Checkpoint checkpoint) {
        checkpoint.skip("the application does not take checkpoints");
    }

    /**
     * With a log holding a checkpoint: the application's state at {@code position}, as it saved it, from which this
     * restarted member goes on; the first callback after a join, before the view, and called at most once. The
     * broadcasts delivered after it are those after {@code position}. A listener that saves checkpoints must
     * install it; an exception here stops the process ({@link FailStop}): a member must not go on from a state
     * it could not restore.
     */
    default void restore(long position, byte[] state) {
        throw new IllegalStateException("a checkpoint at " + position + " to restore, but the listener cannot");
    }

    /**
     * The view's recovery found that the view cannot continue the group's history (too few replicas, or none
     * holding the latest state): this member delivers nothing until the next view. The default ignores it.
     *
     * @param reason why, for operators and for the errors clients see
     */
    default void notPrimary(View view, String reason) {
    }
}
