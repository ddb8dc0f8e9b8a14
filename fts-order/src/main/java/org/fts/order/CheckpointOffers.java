package org.fts.order;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.fts.gc.MemberId;
import org.fts.gc.internal.DeliveryPump;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable {@link Member}'s checkpoints ({@code fts.durability=log}): it offers its application one at the position
 * delivered once the log grew by {@code fts.durability.checkpoint} bytes since the last, one at a time, and knows
 * whether its log can rebuild the application's state after a restart (<em>rooted</em>): not after a gap, until the
 * application checkpoints the state it installed, at the gap's position or later.
 *
 * <p>Guarded by the member's monitor: the member calls every method under it, and an application's answer to an
 * offer comes back through {@link Answered}, which takes it.
 */
final class CheckpointOffers {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointOffers.class);

    /** Where an application's answer to an offer goes (the member, which takes its monitor first). */
    interface Answered {
        void checkpointed(long position, boolean written);
    }

    private final MemberId self;
    private final MemberLog disk;
    private final DeliveryPump pump;
    private final Answered answered;
    /** Per origin, the highest oseq delivered: the marks of a checkpoint taken at the delivered position. */
    private final Map<MemberId, Long> marks = new HashMap<>();
    /** Payload bytes delivered since the last checkpoint was offered. */
    private long since;
    /** A checkpoint offered to the application, not saved or skipped yet. */
    private boolean out;
    private boolean rooted = true;
    /** While not rooted: the first position whose checkpoint roots the log again. */
    private long floor;

    CheckpointOffers(MemberId self, MemberLog disk, DeliveryPump pump, Answered answered) {
        this.self = self;
        this.disk = disk;
        this.pump = pump;
        this.answered = answered;
    }

    /** Whether a restart can rebuild the application's state from the log. */
    boolean rooted() {
        return rooted;
    }

    /**
     * Where a restarted member's log goes on from: the checkpoint at {@code floor} with {@code rootMarks} (or the
     * initial state); {@code rooted} false when it holds no state there (its application fetches one), and the marks
     * delivered are then {@code heldMarks}, all it holds.
     */
    void restored(boolean rooted, long floor, Map<MemberId, Long> rootMarks, Map<MemberId, Long> heldMarks) {
        this.rooted = rooted;
        this.floor = floor;
        marks.clear();
        marks.putAll(rooted ? rootMarks : heldMarks);
    }

    /** The log starts again at a founding's first entry: nothing delivered yet. */
    void refounded() {
        marks.clear();
    }

    /**
     * The log starts again at {@code position} after a gap, with {@code atGap} the marks there: not rooted until the
     * application checkpoints the state it installs.
     */
    void gap(long position, Map<MemberId, Long> atGap) {
        rooted = false;
        floor = position;
        marks.clear();
        marks.putAll(atGap);
        since = 0;
    }

    /** {@code e} was delivered to the application. */
    void delivered(Entry e) {
        marks.merge(e.origin(), e.oseq(), Math::max);
        since += e.payload().length;
    }

    /**
     * Offers the application a checkpoint at {@code delivered} (queued after the broadcasts delivered so far) once the
     * log grew by {@code fts.durability.checkpoint} bytes, or at once while the log cannot rebuild the state; one at a
     * time, and only while the application holds the group's state ({@code synced}).
     */
    void offer(long delivered, boolean synced) {
        if (out || !synced || (rooted && since < disk.checkpointEvery())) {
            return;
        }
        out = true;
        since = 0;
        pump.checkpoint(new Due(delivered, new HashMap<>(marks)));
    }

    /**
     * The application answered the offer at {@code position}; under the member's monitor. Returns whether another
     * should be offered at once (a checkpoint from before a gap was written, and the log is still not rooted).
     */
    boolean answered(long position, boolean written) {
        out = false;
        if (written && !rooted && position >= floor) {
            rooted = true;
            LOG.info("{}: its log rebuilds its state again, from the checkpoint at {}", self, position);
            return false;
        }
        return written && !rooted;
    }

    /** A checkpoint offered to the application; its state goes to the log's checkpoints. */
    private final class Due implements org.fts.gc.Checkpoint {
        private final long position;
        private final Map<MemberId, Long> at;
        private final AtomicBoolean done = new AtomicBoolean();

        Due(long position, Map<MemberId, Long> at) {
            this.position = position;
            this.at = at;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void save(byte[] state) {
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException("checkpoint at " + position + " already saved or skipped");
            }
            disk.checkpoint(position, at, state, ok -> answered.checkpointed(position, ok));
        }

        @Override
        public void skip(String why) {
            if (done.compareAndSet(false, true)) {
                LOG.debug("{}: checkpoint at {} skipped: {}", self, position, why);
                answered.checkpointed(position, false);
            }
        }
    }
}
