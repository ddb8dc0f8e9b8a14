package org.fts.order;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
    private final List<Asked> next = new ArrayList<>();
    private List<Asked> round = List.of();
    private long roundNo;
    private EpochId roundEpoch;
    private List<MemberId> roundMembers = List.of();
    private long roundPosition;
    private long roundStart;
    private int majority;
    private final Set<String> confirmedBy = new HashSet<>();
    private final java.util.concurrent.atomic.LongAdder rounds = new java.util.concurrent.atomic.LongAdder();

    /** @param point the read point now, or null when this member sequences no open epoch */
    ReadConfirmer(MemberId self, GroupConfig config, Net net, Supplier<Point> point) {
        this.self = self;
        this.config = config;
        this.net = net;
        this.point = point;
    }

    void asked(MemberId from, ReadWire.Index m, long now) {
        synchronized (this) {
            next.add(new Asked(from, m.epochView(), m.id()));
            if (!round.isEmpty()) {
                return;
            }
        }
        startRound(now);
    }

    /** A member follows the round's epoch still: a majority of the replicas ends the round. */
    void ponged(MemberId from, ReadWire.Pong p, long now) {
        List<Asked> done;
        long position;
        synchronized (this) {
            if (round.isEmpty() || p.round() != roundNo || p.epochView() != roundEpoch.view()
                    || !roundMembers.contains(from)) {
                return;
            }
            confirmedBy.add(from.replica());
            if (confirmedBy.size() < majority) {
                return;
            }
            done = round;
            round = List.of();
            position = roundPosition;
        }
        answer(done, position);
        startRound(now);
    }

    /** This member's view changed: it confirms nothing of its old epoch any more. */
    void viewChanged() {
        List<Asked> all;
        synchronized (this) {
            all = new ArrayList<>(round);
            all.addAll(next);
            round = List.of();
            next.clear();
        }
        answer(all, -1);
    }

    /** The timer: a round unconfirmed for too long is refused; the requests after it get a round of their own. */
    void tick(long now) {
        List<Asked> late = List.of();
        synchronized (this) {
            if (!round.isEmpty() && now - roundStart > ReadRequester.TIMEOUT_NANOS) {
                late = round;
                round = List.of();
            }
        }
        answer(late, -1);
        startRound(now);
    }

    /** Confirmation rounds run so far. */
    long rounds() {
        return rounds.sum();
    }

    private void startRound(long now) {
        while (true) {
            List<Asked> refused = new ArrayList<>();
            List<Asked> confirmed = new ArrayList<>();
            List<Asked> done = null;
            ReadWire.Ping ping = null;
            long position;
            synchronized (this) {
                if (!round.isEmpty() || next.isEmpty()) {
                    return;
                }
                // Under this monitor, after every request of the round arrived: this sequencer's own confirmation,
                // and the position, must be later than each of their reads' start.
                Point p = point.get();
                List<Asked> mine = new ArrayList<>();
                int majorityNow = p == null ? 0 : config.majority(p.members());
                for (Asked a : next) {
                    if (p == null || a.epochView() != p.epoch().view()) {
                        refused.add(a);
                    } else if (!a.from().replica().equals(self.replica()) && majorityNow <= 2
                            && p.members().contains(a.from())) {
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
                if (!mine.isEmpty()) {
                    rounds.increment();
                    roundNo++;
                    roundEpoch = p.epoch();
                    roundMembers = p.members();
                    roundPosition = position;
                    roundStart = now;
                    majority = config.majority(p.members());
                    confirmedBy.clear();
                    confirmedBy.add(self.replica());
                    if (confirmedBy.size() >= majority) {
                        done = mine;
                    } else {
                        round = mine;
                        ping = new ReadWire.Ping(p.epoch().view(), roundNo);
                    }
                }
            }
            answer(refused, -1);
            answer(confirmed, position);
            if (ping != null) {
                net.ping(ping);
                return;
            }
            if (done == null) {
                return;
            }
            answer(done, position);
        }
    }

    private void answer(List<Asked> asked, long position) {
        for (Asked a : asked) {
            net.answer(a.from(), new ReadWire.Answer(a.epochView(), a.id(), position));
        }
    }
}
