package org.fts.order;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * The sequencer side of read barriers (docs/reads.md): Raft's ReadIndex, batched. Requests ({@link ReadWire.Index})
 * that arrive while a round runs wait for the next. A round takes the position of the last broadcast this sequencer
 * ordered, then asks every member whether it still follows this epoch ({@link ReadWire.Ping}); once a majority of
 * the replicas, this one included, said so ({@link ReadWire.Pong}), the position answers every request of the
 * round ({@link ReadWire.Answer}). A member that joined a later recovery never says so again, and a later epoch opens
 * only once a majority of the replicas joined its recovery: so no later epoch had delivered anything when the round
 * was confirmed, and every broadcast delivered anywhere before a request arrived is at or before the position. A
 * round not confirmed within {@link ReadRequester#TIMEOUT_NANOS}, and every request at a view change, is refused.
 *
 * <p>A request says as much as a pong of its own: its member followed this epoch when it sent it, after its reads
 * began. So where this sequencer and the asking member are a majority (three replicas), the request is answered at
 * once, with no round of pings; only this sequencer's own reads, and every read of a larger group, wait for pongs.
 *
 * <p>With a {@link ReadLease} ({@code fts.reads.lease}), a round's pongs also grant a lease: while it runs, every
 * request is answered at once with the position ordered last, and the sequencer renews it with a round of its own
 * when half of it is left.
 *
 * <p>Lock order: its monitor, then {@link #point}'s (the sequencer's monitor, then the member's), read under it;
 * nothing holding those calls in here. It sends after leaving its monitor.
 */
final class ReadConfirmer {
    /** What it sends. */
    interface Net {
        /** To every other member of the view. */
        void ping(ReadWire.Ping ping);

        /** To {@code to}: a direct call when it is this member. */
        void answer(MemberId to, ReadWire.Answer answer);
    }

    /** The epoch this member sequences and has opened, its members, and the last position it ordered. */
    record Point(EpochId epoch, List<MemberId> members, long position) {
    }

    private record Asked(MemberId from, long epochView, long id) {
    }

    private final MemberId self;
    private final GroupConfig config;
    private final Net net;
    private final Supplier<Point> point;
    private final LongSupplier clock;
    private final ReadLease lease;
    private final List<Asked> next = new ArrayList<>();
    /** Whether a round of pings runs (for {@code round}'s requests, or to renew the lease). */
    private boolean running;
    private List<Asked> round = List.of();
    private long roundNo;
    private EpochId roundEpoch;
    private List<MemberId> roundMembers = List.of();
    private long roundPosition;
    private long roundStart;
    private long roundGrant;
    private int majority;
    private final Set<String> confirmedBy = new HashSet<>();
    private final java.util.concurrent.atomic.LongAdder rounds = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder leased = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param point the read point now, or null when this member sequences no open epoch
     * @param clock the read clock, in nanoseconds
     */
    ReadConfirmer(MemberId self, GroupConfig config, Net net, Supplier<Point> point, LongSupplier clock) {
        this.self = self;
        this.config = config;
        this.net = net;
        this.point = point;
        this.clock = clock;
        this.lease = new ReadLease(config.readLeaseNanos());
    }

    void asked(MemberId from, ReadWire.Index m) {
        synchronized (this) {
            next.add(new Asked(from, m.epochView(), m.id()));
        }
        startRound();
    }

    /** A member follows the round's epoch still: a majority of the replicas ends the round. */
    void ponged(MemberId from, ReadWire.Pong p) {
        List<Asked> done;
        long position;
        synchronized (this) {
            if (!running || p.round() != roundNo || p.epochView() != roundEpoch.view()
                    || !roundMembers.contains(from) || !config.votes(from) || !confirmedBy.add(from.replica())) {
                return;
            }
            roundGrant = Math.min(roundGrant, p.lease());
            if (confirmedBy.size() < majority) {
                return;
            }
            lease.confirmed(roundEpoch, roundStart, roundGrant);
            done = round;
            round = List.of();
            running = false;
            position = roundPosition;
        }
        answer(done, position);
        startRound();
    }

    /** This member's view changed: it confirms nothing of its old epoch any more. */
    void viewChanged() {
        List<Asked> all;
        synchronized (this) {
            all = new ArrayList<>(round);
            all.addAll(next);
            round = List.of();
            running = false;
            next.clear();
            lease.clear();
        }
        answer(all, -1);
    }

    /** The timer: a round unconfirmed for too long is refused; the requests after it get a round of their own. */
    void tick(long now) {
        List<Asked> late = List.of();
        synchronized (this) {
            if (running && now - roundStart > ReadRequester.TIMEOUT_NANOS) {
                late = round;
                round = List.of();
                running = false;
            }
        }
        answer(late, -1);
        startRound();
    }

    /** Confirmation rounds run so far. */
    long rounds() {
        return rounds.sum();
    }

    /** Requests answered under the lease so far. */
    long leased() {
        return leased.sum();
    }

    /**
     * Answers what it can now (refused: another epoch; confirmed: the asking member and this sequencer are a
     * majority, or the lease runs), and starts a round of pings for the rest, or to renew the lease (expired, or half
     * of it left: so a lease is renewed only while requests come), unless one runs.
     */
    private void startRound() {
        List<Asked> refused = new ArrayList<>();
        List<Asked> confirmed = new ArrayList<>();
        List<Asked> done = null;
        ReadWire.Ping ping = null;
        long position;
        synchronized (this) {
            if (next.isEmpty()) {
                return;
            }
            // Under this monitor, after every request here arrived: this sequencer's own confirmation, the lease's
            // time and the position must be later than each of their reads' start.
            long now = clock.getAsLong();
            Point p = point.get();
            boolean leaseRuns = p != null && lease.holds(p.epoch(), now);
            int majorityNow = p == null ? 0 : config.majority(p.members());
            List<Asked> mine = new ArrayList<>();
            for (Asked a : next) {
                if (p == null || a.epochView() != p.epoch().view()) {
                    refused.add(a);
                } else if (leaseRuns) {
                    confirmed.add(a);
                    leased.increment();
                } else if (!a.from().replica().equals(self.replica()) && majorityNow <= 2
                        && p.members().contains(a.from()) && config.votes(a.from()) && config.votes(self)) {
                    confirmed.add(a);   // this sequencer and the asking member are a majority: see the class
                } else {
                    mine.add(a);
                }
            }
            next.clear();
            position = p == null ? -1 : p.position();
            if (!confirmed.isEmpty()) {
                rounds.increment();
            }
            if (running) {
                next.addAll(mine);   // they wait for the next round
            } else if (p != null && (!mine.isEmpty() || lease.renewDue(p.epoch(), now))) {
                rounds.increment();
                roundNo++;
                roundEpoch = p.epoch();
                roundMembers = p.members();
                roundPosition = position;
                roundStart = now;
                roundGrant = Long.MAX_VALUE;
                majority = config.majority(p.members());
                confirmedBy.clear();
                if (config.votes(self)) {
                    confirmedBy.add(self.replica());
                }
                if (confirmedBy.size() >= majority) {
                    done = mine;
                } else {
                    round = mine;
                    running = true;
                    ping = new ReadWire.Ping(p.epoch().view(), roundNo);
                }
            }
        }
        answer(refused, -1);
        answer(confirmed, position);
        if (ping != null) {
            net.ping(ping);
        }
        if (done != null) {
            answer(done, position);
        }
    }

    private void answer(List<Asked> asked, long position) {
        for (Asked a : asked) {
            net.answer(a.from(), new ReadWire.Answer(a.epochView(), a.id(), position));
        }
    }
}
