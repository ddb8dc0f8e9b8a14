package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * A member's watch over its sequencer, the other side of {@link StallWatch}: the sequencer probes the members a
 * majority moved on without; this probes the sequencer when a member stops hearing it.
 *
 * <p>Why: a sequencer that cannot send to the others (its outgoing links cut, or every link to it dropped one way,
 * which over TCP stops both directions) orders nothing, and nothing in the protocol noticed until the members'
 * heartbeats timed out (FD_ALL3, 6.25 s); after a cut just shorter than that, the group stalled for the whole
 * cut and the merge that followed (chaos oneway seed 205 on 5c88605: 10.0 s without an answer).
 *
 * <p>How, SWIM's way: a member that has heard nothing from its sequencer for {@code patience} probes it
 * ({@link Wire.Probe}) and asks every other member to probe it too ({@link Wire.ProbeFor}); a member whose probe
 * is answered vouches for it ({@link Wire.Vouch}). Heard from, directly or through a vouch, within another
 * {@code patience}, the sequencer stays. Otherwise this member suspects it through the membership service: the
 * member next in line then takes the sequencer's place; any other tells that one ({@link Wire.Unreachable}), which
 * checks for itself at once. The indirect probes keep one member's cut link from deposing a sequencer the others
 * still hear (a bridge): there, the sequencer's own watch excludes the cut member instead.
 *
 * <p>The other way round, a member the sequencer excluded without its learning it (paused, or cut one way at the
 * wrong moment) is told so by the sequencer's answer to its probe ({@link Wire.ProbeReply#member}), and leaves its
 * stale view: alone, it is not primary and merges back. Without that, the answers to its probes counted as the
 * sequencer's heartbeats, its failure detector never suspected anyone, and it waited in the stale view for good
 * (chaos pause seed 712 on bb3cb2a).
 *
 * <p>Guarantees: suspects only a sequencer that answered neither this member's probes nor any other member's for
 * a whole {@code patience} after {@code patience} of silence; never suspects itself; forgets everything at a view
 * change. Thread-safe; {@link #heard} is a comparison on the receiving path, and a clock
 * read and a volatile write for the sequencer's messages.
 */
final class SequencerWatch {
    /** What the watch sends and asks for. */
    interface Out {
        void probe(MemberId target);

        void probeFor(MemberId helper, MemberId target);

        void vouch(MemberId asker, MemberId target);

        void unreachable(MemberId successor, MemberId target);

        void suspect(MemberId target);

        /** The sequencer answered that this member is not in its view: leave the stale view. */
        void leave(MemberId sequencer);
    }

    private final MemberId self;
    /** This view's sequencer, null when this member is the sequencer or alone. */
    private volatile MemberId sequencer;
    private volatile long lastHeard;
    private List<MemberId> helpers = List.of();
    private MemberId successor;
    private long checkingSince;
    private long vouchedAt;
    /** Members that asked this one to probe a target: target to askers. */
    private final Map<MemberId, Set<MemberId>> askers = new HashMap<>();
    private long suspicions;
    private boolean left;
    /** The id of this member's view. */
    private long viewId = -1;

    SequencerWatch(MemberId self) {
        this.self = self;
    }

    /** A new view: its coordinator is the sequencer to watch; silence is counted from {@code now}. */
    synchronized void view(View v, long now) {
        MemberId seq = v.members().isEmpty() ? null : v.coordinator();
        sequencer = seq == null || seq.equals(self) ? null : seq;
        helpers = new ArrayList<>(v.members());
        helpers.remove(self);
        helpers.remove(seq);
        successor = v.members().size() > 1 ? v.members().get(1) : null;
        lastHeard = now;
        checkingSince = 0;
        askers.clear();
        left = false;
        viewId = v.id();
    }

    /** Any message from {@code src}: the sequencer's count as signs of life (the clock is read only for those). */
    void heard(MemberId src) {
        if (src.equals(sequencer)) {
            lastHeard = System.nanoTime();
        }
    }

    /** {@link #heard(MemberId)} at a given time (tests). */
    void heard(MemberId src, long now) {
        if (src.equals(sequencer)) {
            lastHeard = now;
        }
    }

    /** One tick at {@code now}. Sends happen after the watch's lock is released. */
    void tick(long now, long patience, Out out) {
        List<Runnable> sends = new ArrayList<>(4);
        synchronized (this) {
            MemberId seq = sequencer;
            if (seq == null) {
                return;
            }
            if (checkingSince == 0) {
                if (now - lastHeard >= patience) {
                    start(seq, now, out, sends);
                }
            } else if (lastHeard >= checkingSince || vouchedAt >= checkingSince) {
                checkingSince = 0;   // it answered someone: alive
            } else if (now - checkingSince < patience) {
                sends.add(() -> out.probe(seq));
            } else {
                checkingSince = 0;
                suspicions++;
                lastHeard = now;   // watched afresh, should the membership service keep it
                MemberId next = successor;
                if (next != null && !self.equals(next)) {
                    sends.add(() -> out.unreachable(next, seq));
                }
                sends.add(() -> out.suspect(seq));
            }
        }
        sends.forEach(Runnable::run);
    }

    private void start(MemberId seq, long now, Out out, List<Runnable> sends) {
        checkingSince = now;
        sends.add(() -> out.probe(seq));
        for (MemberId h : helpers) {
            sends.add(() -> out.probeFor(h, seq));
        }
    }

    /** How many times this member suspected its sequencer. */
    synchronized long suspicions() {
        return suspicions;
    }

    /** {@code asker} asks this member to probe {@code target}. */
    void probeFor(MemberId asker, MemberId target, Out out) {
        synchronized (this) {
            askers.computeIfAbsent(target, k -> new HashSet<>()).add(asker);
        }
        out.probe(target);
    }

    /**
     * {@code from} answered a probe of this member's, checked against its view {@code fromView}: vouch for it to
     * whoever asked; and if it is the sequencer, this member is not in its view and that view is newer than this
     * member's, leave the stale view (once per view). An answer from an older view is stale: the sequencer had not
     * installed this member's view yet (a merge reaches the members one by one), or the answer was late; leaving on
     * it split a view that had just formed (JGroupsBridgeTest one-way, CI on c2e96aa).
     */
    void answered(MemberId from, boolean member, long fromView, Out out) {
        Set<MemberId> waiting;
        boolean leave = false;
        synchronized (this) {
            waiting = askers.remove(from);
            if (!member && from.equals(sequencer) && !left && fromView > viewId) {
                left = true;
                leave = true;
            }
        }
        if (waiting != null) {
            waiting.forEach(a -> out.vouch(a, from));
        }
        if (leave) {
            out.leave(from);
        }
    }

    /** Another member's probe of {@code target} was answered. */
    synchronized void vouched(MemberId target, long now) {
        if (target.equals(sequencer)) {
            vouchedAt = now;
        }
    }

    /** Another member neither hears {@code target} nor found anyone who does: check at once. */
    void unreachable(MemberId target, long now, Out out) {
        List<Runnable> sends = new ArrayList<>(4);
        synchronized (this) {
            MemberId seq = sequencer;
            if (seq != null && seq.equals(target) && checkingSince == 0) {
                start(seq, now, out, sends);
            }
        }
        sends.forEach(Runnable::run);
    }
}
