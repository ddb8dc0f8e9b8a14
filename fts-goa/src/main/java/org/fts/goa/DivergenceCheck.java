package org.fts.goa;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.fts.config.ConfigKey;
import org.fts.gc.FailStop;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Divergence caught while serving (docs/determinism.md). Every replica hashes each reply it executes (the object,
 * the reply's kind and bytes: CRC32C) at its position of the order; after each window of {@code fts.divergence.window}
 * positions it casts the window's hashes ({@link Cast.ReplyDigest}). Where the digests of a window are delivered, in
 * the same order at every replica, the group's hashes for it are decided: those of a majority of the group, or, once
 * every replica reported and no majority agrees, those delivered first. A replica whose own hashes differ stops
 * ({@link FailStop}), naming the first differing position, its object and operation; restarted, it takes the
 * group's state like any restarted replica.
 *
 * <p>What it costs: one CRC32C per reply on the execution path, and one cast of 4 bytes per position per replica
 * (512 bytes per 128 requests at the default). What it catches: a servant whose reply differs from the group's,
 * within one window and the order round of its digest; a state that differs without any reply showing it is caught
 * when a reply does. Runs with one execution lane (the default); with more, the positions of different objects'
 * executions are not ordered, and the check is off (logged at start).
 */
final class DivergenceCheck {
    private static final Logger LOG = LoggerFactory.getLogger(DivergenceCheck.class);

    static final ConfigKey<Integer> WINDOW = ConfigKey.integer("fts.divergence.window", 128, 0, Cast.MAX_DIGEST_HASHES,
            "requests", "positions per reply digest each replica casts; a replica whose replies differ from the "
                    + "group's stops within one window, naming the object (0: off; also off with fts.pool.background > 1)");
    static final List<ConfigKey<?>> KEYS = List.of(WINDOW);
    /** Windows remembered, own and the group's: a digest older than these is not compared. */
    private static final int KEPT = 16;

    private final String self;
    private final String replica;
    private final int window;
    /** N, the voters' number, as the binding holds it now (it changes with the voters: docs/membership.md). */
    private final java.util.function.IntSupplier groupSize;
    private final Consumer<Cast> cast;
    private final ArrayDeque<Own> own = new ArrayDeque<>();
    private final java.util.TreeMap<Long, Votes> votes = new java.util.TreeMap<>();
    /** The members of the current view (their names): only their digests count. */
    private final java.util.function.Supplier<Set<String>> members;
    private long newest = -1;
    private Own filling;
    private final CRC32C crc = new CRC32C();   // the execution path's, one thread

    /** Set by the delivery thread while this replica's state is not current ({@link #stale(boolean)}). */
    private volatile boolean stale;

    /** One window of this replica's own replies. */
    private static final class Own {
        final long index;
        final int[] hashes;
        final ObjectKey[] keys;
        final String[] operations;
        /** This replica executed it from its first position (not joined in its middle), on outcomes that count. */
        boolean whole;

        Own(long index, int size, boolean whole) {
            this.index = index;
            this.hashes = new int[size];
            this.keys = new ObjectKey[size];
            this.operations = new String[size];
            this.whole = whole;
        }
    }

    /** The digests delivered for one window. */
    private static final class Votes {
        final Map<Hashes, Set<String>> by = new LinkedHashMap<>();   // first delivered first
        final Set<String> replicas = new HashSet<>();
        boolean decided;
    }

    private record Hashes(int[] h) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Hashes other && Arrays.equals(h, other.h);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(h);
        }
    }

    /**
     * @param self    this member's name (replica id and incarnation), which its digests carry
     * @param window  positions per digest, 0 for off
     * @param members the current view's member names
     */
    DivergenceCheck(String self, int window, int groupSize, Consumer<Cast> cast,
                    java.util.function.Supplier<Set<String>> members) {
        this(self, window, () -> groupSize, cast, members);
    }

    /** As above, with N read at each decision ({@code members}: the voters of the current view). */
    DivergenceCheck(String self, int window, java.util.function.IntSupplier groupSize, Consumer<Cast> cast,
                    java.util.function.Supplier<Set<String>> members) {
        this.self = self;
        this.replica = new org.fts.gc.MemberId(self).replica();
        this.members = members;
        this.window = window;
        this.groupSize = groupSize;
        this.cast = cast;
    }

    boolean on() {
        return window > 0;
    }

    /**
     * The delivery thread: whether this replica's state stopped being current (a gap: it will take the group's state).
     * Meanwhile an execution may end on an outcome made up here ({@link Outcalls#stale}: its ordered call's
     * outcome is not awaited): the window it falls in is compared with nobody's. Set before that outcome is given.
     */
    void stale(boolean stale) {
        this.stale = stale;
    }

    /** Execution path: the reply to the request at {@code position} (to {@code key}, {@code operation}). */
    void executed(long position, ObjectKey key, String operation, Reply reply) {
        if (window == 0 || position < 0) {
            return;   // off, or the position is not known yet (ExecutionRecord)
        }
        long index = position / window;
        int slot = (int) (position % window);
        if (filling == null || filling.index != index) {
            filling = new Own(index, window, slot == 0);
            own.addLast(filling);
            if (own.size() > KEPT) {
                own.removeFirst();
            }
        }
        if (stale) {
            filling.whole = false;   // its state is about to be replaced: its replies prove nothing
        }
        crc.reset();
        crc.update(key.id());
        crc.update(reply.kind().ordinal());
        crc.update(reply.body());
        filling.hashes[slot] = (int) crc.getValue();
        filling.keys[slot] = key;
        filling.operations[slot] = operation;
        if (slot == window - 1 && filling.whole) {
            cast.accept(new Cast.ReplyDigest(self, index, filling.hashes.clone()));
        }
    }

    /** Execution path, at a cut: the state was replaced, positions go on from the snapshot's. */
    void reset() {
        stale = false;
        own.clear();
        filling = null;
    }

    /** Execution path: a digest delivered at this position of the order. */
    void delivered(Cast.ReplyDigest d) {
        if (window == 0 || d.hashes().length != window) {
            return;   // another window size: fts.divergence.window is an agreed setting
        }
        if (d.window() < newest - KEPT || !members.get().contains(d.member())) {
            // A window long decided, or a digest from a member not in the view: cast before a crash and replayed from
            // a log (a restarted replica's, which compares nothing it replays), or from a member that left.
            return;
        }
        newest = Math.max(newest, d.window());
        Votes v = votes.computeIfAbsent(d.window(), w -> new Votes());
        while (votes.size() > KEPT) {
            votes.remove(votes.firstKey());
        }
        if (v.decided || !v.replicas.add(d.member())) {
            return;
        }
        v.by.computeIfAbsent(new Hashes(d.hashes()), h -> new HashSet<>()).add(d.member());
        int n = groupSize.getAsInt();
        int majority = n / 2 + 1;
        Map.Entry<Hashes, Set<String>> group = null;
        String how = null;
        for (Map.Entry<Hashes, Set<String>> e : v.by.entrySet()) {
            if (e.getValue().size() >= majority) {
                group = e;
                how = e.getValue().size() + " of " + n + " replicas agree";
            }
        }
        if (group == null && v.replicas.size() >= n && v.by.size() > 1) {
            group = v.by.entrySet().iterator().next();   // no majority agrees: the first delivered decides
            how = "no majority of the " + n + " replicas agrees; the first digest ordered decides";
        }
        if (group == null) {
            if (v.by.size() > 1 && v.replicas.size() == 2) {
                LOG.warn("{}: replicas' replies differ in window {} (positions {}-{}); deciding when a majority agrees",
                        replica, d.window(), d.window() * window, (d.window() + 1) * window - 1);
            }
            return;
        }
        v.decided = true;
        compare(d.window(), group.getKey().h(), how);
    }

    private void compare(long index, int[] group, String how) {
        Own mine = null;
        for (Own o : own) {
            if (o.index == index) {
                mine = o;
            }
        }
        if (mine == null || !mine.whole || !complete(mine)) {
            return;   // not executed here whole (joined after it, or its state came by transfer)
        }
        for (int i = 0; i < window; i++) {
            if (mine.hashes[i] != group[i]) {
                String what = "replica " + replica + " diverged from the group at position " + (index * window + i)
                        + ": its reply to " + mine.operations[i] + " on object "
                        + Snapshot.name(mine.keys[i]) + " differs from the group's (" + how + "). A servant is not deterministic (it reads a clock, draws a "
                        + "random number, iterates an unordered collection, or calls out: docs/determinism.md); this "
                        + "replica stops and, restarted, takes the group's state";
                LOG.error("{}", what);
                FailStop.fatal(new IllegalStateException(what));
                return;
            }
        }
    }

    private boolean complete(Own o) {
        return o.operations[window - 1] != null;
    }
}
