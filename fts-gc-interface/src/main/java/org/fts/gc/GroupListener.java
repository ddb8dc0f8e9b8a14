package org.fts.gc;

/**
 * What a {@link GroupChannel} delivers to its application.
 *
 * <p>All three callbacks of one channel run on that channel's single delivery thread, one at a time, in the
 * order the channel delivers them; never on a group-communication protocol thread. A callback may call
 * {@link GroupChannel#abcast}, {@link GroupChannel#send} and {@link GroupChannel#close} on its own channel.
 *
 * <p>A callback that blocks delays only this member's later callbacks: the group keeps running, the other
 * members keep delivering, this member keeps taking part in the protocol (acknowledging, sequencing, failure
 * detection), and its pending deliveries accumulate in memory until the callback returns (see
 * {@link GroupChannel#pendingDeliveries()}). A callback that throws is logged and skipped; later deliveries
 * continue.
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
     * that contains the joiner.
     */
    void viewAccepted(View view);
}
