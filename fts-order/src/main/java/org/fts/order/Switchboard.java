package org.fts.order;

import java.util.ArrayList;
import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the messages of a {@link TotalOrder} go: each one received, to the role it is for ({@link #dispatch}); each
 * one a role sends ({@link Member.Net}, {@link Sequencer.Net}, {@link Origin.Forwarder}), over the transport, or,
 * when it is for this very member, straight to its role here, without the network.
 */
final class Switchboard implements Member.Net, Sequencer.Net, Origin.Forwarder {
    private static final Logger LOG = LoggerFactory.getLogger(Switchboard.class);
    private static final int REPAIR_CHUNK_ENTRIES = 1_000;
    private static final int REPAIR_CHUNK_BYTES = 1 << 20;

    private final TotalOrder t;
    /** Reports held back while a read lease this member granted runs ({@link #state}). */
    private final List<Runnable> heldReports = new ArrayList<>();
    /** Guarded by {@link #heldReports}: held reports are being sent ({@link #releaseReports}). */
    private boolean releasing;

    /** Reads {@code t}'s roles as it calls them: it is made before them. */
    Switchboard(TotalOrder t) {
        this.t = t;
    }

    /** A message received from {@code src}: to the role it is for. */
    void dispatch(MemberId src, Wire.Msg m) {
        if (m instanceof ReadWire.ReadMsg r) {
            read(src, r);
        } else if (m instanceof Wire.Ord o) {
            t.member.onOrd(src, o);
        } else if (m instanceof Wire.Data d) {
            t.member.onData(d);
        } else if (m instanceof Wire.Req r) {
            Steps.runAll(t.sequencer.onReq(src, r));
        } else if (m instanceof Wire.Grant g) {
            t.offload.onGrant(src, g);
        } else if (m instanceof Wire.Fwd f) {
            t.sequencer.onFwd(src, f);
        } else if (m instanceof Wire.Ack a) {
            t.sequencer.acks().onAck(src, a.epochView(), a.held());
        } else if (m instanceof Wire.Commit c) {
            t.member.commit(new EpochId(c.epochView(), src), c.committed(), c.stable(), c.sequencerHolds());
        } else if (m instanceof Wire.StateReq r) {
            Steps.runAll(t.member.onStateReq(src, r.view(), r.ballot()));
        } else if (m instanceof Wire.State s) {
            t.sequencer.onState(src, s);
        } else if (m instanceof Wire.Refused r) {
            Steps.runAll(t.sequencer.onRefused(src, r));
        } else if (m instanceof Wire.SendRepair r) {
            sendRepair(r.view(), r.target(), r.from(), r.upTo());
        } else if (m instanceof Wire.Repair r) {
            Steps.runAll(t.member.onRepair(r.view(), r.entries()));
        } else if (m instanceof Wire.EpochMsg e) {
            Steps.runAll(t.member.onEpoch(src, e));
        } else if (m instanceof Wire.NotPrimary n) {
            t.member.onNotPrimary(src, n.view(), n.reason());
        } else if (m instanceof Wire.MendCut c) {
            Steps.runAll(t.member.onMendCut(src, c.view(), c.after()));
        } else if (m instanceof Wire.Probe p) {
            View v = t.view;
            t.net.probe(src, Wire.encode(new Wire.ProbeReply(p.nonce(), v != null && v.contains(src),
                    v == null ? -1 : v.id())));
        } else if (m instanceof Wire.ProbeReply r) {
            t.timer.answered(src, System.nanoTime());
            t.seqWatch.answered(src, r.member(), r.view(), t.watchOut);
        } else if (m instanceof Wire.ProbeFor f) {
            t.seqWatch.probeFor(src, f.target(), t.watchOut);
        } else if (m instanceof Wire.Vouch v) {
            t.seqWatch.vouched(v.target(), System.nanoTime());
        } else if (m instanceof Wire.Unreachable u) {
            t.seqWatch.unreachable(u.target(), System.nanoTime(), t.watchOut);
        } else if (m instanceof Wire.Direct d) {
            t.pump.direct(src, d.payload());
        } else {
            LOG.warn("{}: dropped an unexpected {} from {}", t.self, m.getClass().getSimpleName(), src);
        }
    }

    private void read(MemberId src, ReadWire.ReadMsg m) {
        if (m instanceof ReadWire.Index i) {
            t.readRounds.asked(src, i);
        } else if (m instanceof ReadWire.Ping p) {
            // only a member that still follows the pinging sequencer's epoch says so, and grants its lease
            long lease = t.config.readLeaseNanos();
            if (t.member.grantLease(p.epochView(), src, t.readClock.getAsLong() + lease)) {
                t.net.urgent(src, Wire.encode(new ReadWire.Pong(p.epochView(), p.round(), lease)));
            }
        } else if (m instanceof ReadWire.Pong p) {
            t.readRounds.ponged(src, p);
        } else if (m instanceof ReadWire.Answer a) {
            t.reads.answered(src, a, t.readClock.getAsLong());
        }
    }

    /**
     * A report to a recovery: held back while a read lease this member granted runs (no newer epoch may open before
     * it ends: docs/reads.md), and behind any report held back before it; {@link #releaseReports} sends them.
     */
    @Override
    public void state(MemberId to, Wire.State s) {
        synchronized (heldReports) {
            if (releasing || !heldReports.isEmpty()
                    || t.member.leaseGrantedUntil() - t.readClock.getAsLong() > 0) {
                LOG.debug("{}: report for view {} held until its read lease ends", t.self, s.view());
                heldReports.add(() -> toMember(to, s));
                return;
            }
        }
        toMember(to, s);
    }

    /**
     * The timer: the reports held back for a lease that has now ended go, in order, ahead of any later one (one held
     * while they go, even from within a send here, goes after them).
     */
    void releaseReports() {
        while (true) {
            List<Runnable> due;
            synchronized (heldReports) {
                if (heldReports.isEmpty() || t.member.leaseGrantedUntil() - t.readClock.getAsLong() > 0) {
                    releasing = false;
                    return;
                }
                releasing = true;
                due = new ArrayList<>(heldReports);
                heldReports.clear();
            }
            due.forEach(Runnable::run);
        }
    }

    @Override
    public void refused(MemberId to, Wire.Refused r) {
        toMember(to, r);
    }

    @Override
    public void ack(EpochId epoch, long held) {
        ack(epoch, held, false);
    }

    /** An acknowledgement; {@code lossy}: by the transport's path that may lose it ({@link AckSchedule.Due#lossy}). */
    void ack(EpochId epoch, long held, boolean lossy) {
        if (epoch.sequencer().equals(t.self)) {
            t.sequencer.acks().onAck(t.self, epoch.view(), held);
        } else if (lossy) {
            t.net.ack(epoch.sequencer(), Wire.encode(new Wire.Ack(epoch.view(), held)));
        } else {
            t.net.urgent(epoch.sequencer(), Wire.encode(new Wire.Ack(epoch.view(), held)));
        }
    }

    @Override
    public void sequencerOpen(EpochId epoch, long start) {
        Steps.runAll(t.sequencer.open(epoch, start));
    }

    @Override
    public void grant(MemberId to, Wire.Grant g) {
        if (to.equals(t.self)) {
            t.offload.onGrant(t.self, g);
        } else {
            t.net.control(to, Wire.encode(g));
        }
    }

    @Override
    public void request(EpochId epoch, Wire.Req req) {
        if (epoch.sequencer().equals(t.self)) {
            Steps.runAll(t.sequencer.onReq(t.self, req));
        } else {
            t.net.control(epoch.sequencer(), Wire.encode(req));
        }
    }

    @Override
    public void ordToOthers(Wire.Ord o) {
        t.net.multicast(Wire.encode(o));
    }

    @Override
    public void commitToOthers(Wire.Commit c) {
        t.net.multicastUrgent(Wire.encode(c));
    }

    @Override
    public void repair(MemberId source, long view, MemberId target, long from, long upTo) {
        if (source.equals(t.self)) {
            sendRepair(view, target, from, upTo);
        } else {
            t.net.control(source, Wire.encode(new Wire.SendRepair(view, target, from, upTo)));
        }
    }

    @Override
    public void forward(MemberId sequencerMember, long oseq, long firstUnacked, byte[] payload) {
        Wire.Fwd f = new Wire.Fwd(oseq, firstUnacked, payload);
        if (sequencerMember.equals(t.self)) {
            t.sequencer.onFwd(t.self, f);
        } else {
            t.net.unicast(sequencerMember, Wire.encode(f));
        }
    }

    /** Messages of the recovery to one member: to this one, a direct call. */
    @Override
    public void toMember(MemberId to, Wire.Msg m) {
        if (!to.equals(t.self)) {
            t.net.control(to, Wire.encode(m));
        } else if (m instanceof Wire.StateReq r) {
            Steps.runAll(t.member.onStateReq(t.self, r.view(), r.ballot()));
        } else if (m instanceof Wire.State s) {
            t.sequencer.onState(t.self, s);
        } else if (m instanceof Wire.Refused r) {
            Steps.runAll(t.sequencer.onRefused(t.self, r));
        } else if (m instanceof Wire.EpochMsg e) {
            Steps.runAll(t.member.onEpoch(t.self, e));
        } else if (m instanceof Wire.NotPrimary n) {
            t.member.onNotPrimary(t.self, n.view(), n.reason());
        } else if (m instanceof Wire.MendCut c) {
            Steps.runAll(t.member.onMendCut(t.self, c.view(), c.after()));
        }
    }

    /** As the recovery's source: sends {@code target} its missing entries, in chunks. */
    private void sendRepair(long view, MemberId target, long from, long upTo) {
        RepairSender.send(t.member.entries(view, from, upTo), REPAIR_CHUNK_ENTRIES, REPAIR_CHUNK_BYTES, chunk -> {
            if (target.equals(t.self)) {
                Steps.runAll(t.member.onRepair(view, chunk));
            } else {
                t.net.unicast(target, Wire.encode(new Wire.Repair(view, chunk)));
            }
        });
    }
}
