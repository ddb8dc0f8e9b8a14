package org.fts.gc;

/**
 * Membership of one process in one named group, with totally-ordered broadcast in a primary component. This
 * is the whole contract the rest of FTS relies on; every binding ({@code jgroups}, {@code local}, {@code raft})
 * passes the same conformance suite ({@code GroupChannelConformance} in this module's tests). The protocol and the
 * argument for each guarantee are in docs/group-communication.md.
 *
 * <h2>Epochs and the primary component</h2>
 * Every view change opens a recovery. It establishes a new <em>epoch</em> only if the view can continue the
 * group's one history: with {@code fts.group.size} N &gt; 0, its members must hold a majority of the N
 * replicas ({@link MemberId#replica()}), a majority of them must hold the history (a replica restarted after
 * a crash has lost its own until it resynchronises), and one member of the latest epoch must hold a synced
 * state. Otherwise the view is not primary ({@link GroupListener#notPrimary}) and delivers nothing. With
 * N = 0 every view is primary (tests and benchmarks of plain group messaging).
 *
 * <h2>Guaranteed</h2>
 * <ul>
 *   <li><b>One history.</b> Every broadcast any member delivers is part of one sequence, the group's history,
 *       and members deliver it in that order. A member's deliveries are a contiguous stretch of the history
 *       from its last synchronisation on; where it misses a stretch (it was cut off while a primary went on,
 *       it joined late, or it restarted), it is told: by its next epoch ({@link Epoch#gap()}), or by
 *       {@link GroupListener#fellBehind} where the binding had delivered up to that point (raft: a snapshot
 *       took the place of what it missed). A binding may instead deliver the stretch it missed, in its place
 *       (raft: from the leader's log), and then tells nothing; where its listener fell
 *       more than {@code fts.delivery.max_backlog} bytes behind, the member drops broadcasts until it has told
 *       the listener ({@link GroupListener#fellBehind}), which then needs a state as after a gap.</li>
 *   <li><b>Uniform delivery</b> ({@code fts.delivery=uniform}, the default). A member delivers a broadcast only
 *       once a majority of the N replicas hold it; every later primary epoch then includes it, whichever
 *       members crash or are cut off (at most a minority at a time). With {@code agreed} a member delivers as
 *       soon as it has a broadcast, one network hop earlier: a broadcast that only a minority had can then be
 *       delivered and later left out of the history (that member is told of a gap).</li>
 *   <li><b>Delivery to self</b> and <b>FIFO per sender</b>: the sender delivers its own broadcast, in its
 *       place; broadcasts of one member are delivered in the order it called {@link #abcast}.</li>
 *   <li><b>Reliability.</b> A broadcast of a member that stays in primary views is delivered exactly once, by
 *       every member of the epochs it belongs to, including across crashes of the sequencer.</li>
 *   <li><b>One delivery thread.</b> {@link GroupListener} callbacks run on one thread per channel, in order;
 *       a blocked callback cannot stall the group layer (see {@link GroupListener}).</li>
 * </ul>
 *
 * <h2>Not guaranteed</h2>
 * <ul>
 *   <li><b>Virtual synchrony.</b> Views are delivered on the same thread as broadcasts, but two members need
 *       not deliver the same broadcasts between the same two views. A cut (state transfer) needs a marker in
 *       the total order.</li>
 *   <li><b>Ordering of point-to-point messages</b> relative to broadcasts.</li>
 *   <li><b>Durability beyond the fault model.</b> The history lives in the members' memory. If a majority of
 *       the replicas lose it at once (crash before a restarted one resynchronised), the group does not guess:
 *       it stays not primary until enough of them are back.</li>
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

    /**
     * This member's application state holds the group's history up to its latest delivery again: after an
     * epoch with a {@link Epoch#gap() gap}, it installed a state taken at a position of the order (and queued
     * what it delivered after that position). Call it on the delivery thread, from the callback that
     * completes the install. Ignored if a later gap is already queued for this member. Until then the member
     * does not count as holding the group's state, and cannot be a state provider.
     */
    void synced();

    /**
     * This member's {@link Whiteboard}: a few integers it publishes, and everyone's latest ones, read locally.
     * Usable once joined; its entries are those of the current view's members.
     */
    Whiteboard whiteboard();

    /**
     * A linearizable read barrier ({@code docs/reads.md}): calls {@link ReadBarrier#ready} on the delivery thread
     * once this member has delivered every broadcast that any member of the group had delivered when this method was
     * called, or {@link ReadBarrier#refused} when it cannot confirm that (then the caller orders its read as a
     * broadcast). A read the application performs in {@code ready} therefore sees every write whose delivery any
     * member could have answered before the read arrived, without being ordered itself. Only under uniform delivery
     * ({@code fts.delivery=uniform}); with {@code agreed} every barrier is refused. Barriers asked for at about the
     * same time share one confirmation. Never blocks. The default refuses every barrier.
     *
     * @throws GroupException if the channel is not joined or is closed
     */
    default void readBarrier(ReadBarrier barrier) {
        onDeliveryThread(() -> barrier.refused("the group binding has no read barrier"));
    }

    /**
     * The replicas that count toward majorities now, and N ({@link Voters}). On a binding whose voters change while
     * it serves ({@link #changeVoters}) this moves once a change is committed; read it when counting, do not keep it.
     * Never blocks.
     */
    Voters voters();

    /**
     * Orders {@code change} of the voters through the group's own agreement, one change at a time
     * (docs/membership.md). Completes with the voters after it once a majority committed it, exceptionally with a
     * {@link GroupException} saying why when it is refused ({@link Voters#refusal}, or another change is in flight)
     * or fails. A change that fails may still be committed later: read {@link #voters} before trying again. Never
     * blocks. The default refuses: a binding whose voters are fixed at start.
     */
    default java.util.concurrent.CompletableFuture<Voters> changeVoters(VoterChange change) {
        return java.util.concurrent.CompletableFuture.failedFuture(new GroupException("this binding's voters are "
                + "fixed at start (" + voters() + "): change them with the runbook's restart (docs/deployment.md)"));
    }

    /** This member's identity; available once created. */
    MemberId self();

    /** The latest view installed at this member (before the listener may have seen it), or null before join. */
    View view();

    /**
     * Whether a member joining with a history of its own (a log) may deliver it again before the application is
     * ready for it: the application must then hold its first delivery until it can execute it. False by default.
     */
    default boolean replaysItsLog() {
        return false;
    }

    /** What operators and the adaptor's figures read of this member; never part of the group's behaviour. */
    Diagnostics diagnostics();

    /**
     * A member's diagnostics: its queues, how often it fell behind, its log's figures, its standing in the binding's
     * own terms, and the operator's ways in (status and commands through the binding's own diagnostics port). None of
     * them blocks on the group.
     */
    interface Diagnostics {
        /** Deliveries (broadcasts, messages, views) queued for the listener and not yet handed to it. */
        int pendingDeliveries();

        /** Bytes of broadcasts queued for the listener, at most about {@code fts.delivery.max_backlog}. */
        default long pendingBytes() {
            return 0;
        }

        /** How many times this member's listener fell behind the group ({@link GroupListener#fellBehind}). */
        default long fellBehind() {
            return 0;
        }

        /** The figures of this member's log ({@code fts.durability=log}); null without a log. */
        default LogFigures logFigures() {
            return null;
        }

        /**
         * Where this member stands in the binding's own terms, for operators ({@code fts status}): at least {@code
         * role} (e.g. sequencer, member, leader, follower), {@code epoch} and {@code delivered} (the position of the
         * last broadcast handed to the listener, comparable between members of one group) when the binding has
         * them. Never blocks on the group. Empty by default.
         */
        default java.util.Map<String, String> standing() {
            return java.util.Map.of();
        }

        /**
         * Makes {@code status} (the application's fields, e.g. the replica's serving state and reply cache) readable
         * by operators through the binding's own diagnostics, together with {@link #standing()}: the JGroups-based
         * bindings answer JGroups' {@code probe} key {@code fts} with both, which is what {@code fts status} reads.
         * The supplier is called on a diagnostics thread and must not block for long. Does nothing by default (the
         * in-JVM binding has no operators). May be called once, after {@link GroupChannel#join}.
         */
        default void exposeStatus(java.util.function.Supplier<java.util.Map<String, String>> status) {
        }

        /**
         * Makes {@code commands} reachable by operators through the binding's own diagnostics, as {@link
         * #exposeStatus} makes the status: the JGroups-based bindings hand every probe key that starts with {@code
         * fts-} (e.g. {@code fts-backup}, {@code fts-restore=<file>}) to it and answer with the fields it returns, each
         * as {@code fts.<name>=<value>}. It runs on the diagnostics thread, one command at a time, and may block it for
         * as long as the command takes (the handler bounds that). Null or empty: the key is not one of its commands.
         * Does nothing by default. May be called once, after {@link GroupChannel#join}.
         */
        default void exposeCommands(java.util.function.Function<String, java.util.Map<String, String>> commands) {
        }
    }

    /**
     * Runs {@code task} on the delivery thread, after every callback already queued and before any queued
     * later: the application can run its own work at a position of its delivery order without a thread of its
     * own (the GOA executes requests there, with no hand-off). Never blocks. Like a callback, a {@code
     * RuntimeException} from it is logged and delivery goes on; an {@code Error} stops the process.
     *
     * @throws GroupException if the channel is not joined or is closed
     */
    void onDeliveryThread(Runnable task);

    /** Whether the calling thread is this channel's delivery thread, where listener callbacks run. */
    boolean isDeliveryThread();

    /**
     * Leaves the group gracefully and stops the delivery thread; deliveries still queued are dropped. May be
     * called from a listener callback. Idempotent.
     */
    @Override
    void close();
}
