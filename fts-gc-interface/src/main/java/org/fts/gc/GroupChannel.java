package org.fts.gc;

/**
 * Membership of one process in one named group, with totally-ordered broadcast. This is the whole contract
 * the rest of FTS relies on; every binding ({@code jgroups}, {@code local}) passes the same conformance suite
 * ({@code GroupChannelConformance} in this module's tests).
 *
 * <h2>Guaranteed</h2>
 * <ul>
 *   <li><b>Total order.</b> Any two members that deliver two broadcasts {@code m1}, {@code m2} deliver them in
 *       the same order; the sequences delivered by members that stay in the group are identical (prefixes of
 *       one another while traffic is in flight).</li>
 *   <li><b>Delivery to self.</b> The sender delivers its own broadcast, in its place in the total order.</li>
 *   <li><b>FIFO per sender.</b> Broadcasts of one member are delivered in the order it called
 *       {@link #abcast}.</li>
 *   <li><b>Reliability among survivors.</b> Every broadcast of a member that does not crash is delivered
 *       exactly once by every member that stays in the group, including across crashes of the coordinator
 *       (the sequencer); and a broadcast that any survivor delivered, whoever sent it, is delivered by every
 *       survivor.</li>
 *   <li><b>Joiners.</b> A joining member delivers every broadcast ordered after the view that contains it,
 *       and none ordered before it.</li>
 *   <li><b>One delivery thread.</b> {@link GroupListener} callbacks run on one thread per channel, in order;
 *       a blocked callback cannot stall the group layer (see {@link GroupListener}).</li>
 * </ul>
 *
 * <h2>Not guaranteed</h2>
 * <ul>
 *   <li><b>Uniformity beyond the survivors.</b> A member delivers a broadcast as soon as it has it; if every
 *       member that had it crashes, it is lost, and a reply sent on the strength of that delivery was sent for
 *       nothing. FTS offers a uniform mode for replies (see docs).</li>
 *   <li><b>Virtual synchrony.</b> Views are delivered on the same thread as broadcasts, in the order the
 *       member learns of them, but two members need not deliver the same set of broadcasts between the same
 *       two views. Protocols that need a cut (state transfer) must put a marker into the total order.</li>
 *   <li><b>Agreement across a partition.</b> Each side of a partition orders its own broadcasts; after the
 *       merge (a view with {@link View#subgroups()}) every member delivers the same sequence again, but what the
 *       sides delivered while apart differs, and nothing is exchanged between them. The application decides
 *       which side's state stands (FTS: the side that held a majority; docs/primary-view.md).</li>
 *   <li><b>Ordering of point-to-point messages</b> relative to broadcasts.</li>
 * </ul>
 *
 * <p>Life cycle: create through {@link GroupChannels#create}, then {@link #join} once, then {@link #close}
 * (a graceful leave). A channel is not reusable after close.
 */
public interface GroupChannel extends AutoCloseable {

    /**
     * Joins {@code group}; returns once this member is in a view. The listener's first callback is that
     * view.
     *
     * @throws GroupException if the group layer cannot be started or joined, or a member of that name is
     *                        already present
     */
    void join(String group, GroupListener listener);

    /**
     * Broadcasts {@code payload} in total order to every member of the current view, this one included.
     * Returns once the message is handed to the group layer (it may block briefly under flow control), not
     * when it is delivered. The caller must not modify {@code payload} afterwards.
     *
     * @throws GroupException if the channel is not joined or is closed
     */
    void abcast(byte[] payload);

    /**
     * Sends {@code payload} reliably, FIFO, to one member ({@link GroupListener#receive}). The message is
     * dropped if {@code to} leaves or crashes first.
     *
     * @throws GroupException if {@code to} is not in the current view, or the channel is not joined
     */
    void send(MemberId to, byte[] payload);

    /** This member's identity; available once created. */
    MemberId self();

    /** The latest view installed at this member (before the listener may have seen it), or null before join. */
    View view();

    /** Deliveries (broadcasts, messages, views) queued for the listener and not yet handed to it. */
    int pendingDeliveries();

    /**
     * Leaves the group gracefully and stops the delivery thread; deliveries still queued are dropped. May be
     * called from a listener callback. Idempotent.
     */
    @Override
    void close();
}
