package org.fts.order;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;

import static org.fts.order.WireFields.epochIdSize;
import static org.fts.order.WireFields.linksSize;
import static org.fts.order.WireFields.marksSize;
import static org.fts.order.WireFields.name;
import static org.fts.order.WireFields.namesSize;
import static org.fts.order.WireFields.putEpochId;
import static org.fts.order.WireFields.putLinks;
import static org.fts.order.WireFields.putMarks;
import static org.fts.order.WireFields.putNames;
import static org.fts.order.WireFields.putSpans;
import static org.fts.order.WireFields.readEpochId;
import static org.fts.order.WireFields.readLinks;
import static org.fts.order.WireFields.readMarks;
import static org.fts.order.WireFields.readName;
import static org.fts.order.WireFields.readNameOrNull;
import static org.fts.order.WireFields.readNames;
import static org.fts.order.WireFields.readSpans;
import static org.fts.order.WireFields.rest;
import static org.fts.order.WireFields.spansSize;
import static org.fts.order.WireFields.targeted;

/**
 * The messages of {@link TotalOrder}, one record per type, and their bytes. Every message starts with its
 * type byte; numbers are big-endian; a member name is a length byte and UTF-8; an absent name is length 0.
 * The sender of a message is JGroups' (never in the bytes), so an epoch is sent as its view id only: its
 * sequencer is the sender of the ORD or the coordinator the member follows.
 */
final class Wire {
    /** One ordered broadcast: its place in the history, its origin and the origin's own number for it. */
    record Entry(long gseq, MemberId origin, long oseq, byte[] payload) {
    }

    /** A message of the protocol. */
    sealed interface Msg permits Fwd, Ord, Ack, Commit, StateReq, State, SendRepair, Repair, EpochMsg, NotPrimary,
            Direct, Probe, ProbeReply, ProbeFor, Vouch, Unreachable, Refused, Req, Grant, Data, MendCut,
            ReadWire.ReadMsg {
    }

    /** Origin to sequencer: broadcast {@code oseq}; every oseq below {@code firstUnacked} was delivered. */
    record Fwd(long oseq, long firstUnacked, byte[] payload) implements Msg {
    }

    /** Sequencer to the other members: entry {@code e} of epoch {@code epochView}, and the sequencer's marks. */
    record Ord(long epochView, long stable, long committed, Entry e) implements Msg {
    }

    /** Member to its epoch's sequencer: it holds every entry up to {@code held}. */
    record Ack(long epochView, long held) implements Msg {
    }

    /**
     * Sequencer to the other members: every entry up to {@code committed} is held by a majority, and up to {@code
     * stable} by every member (0: not said; the ORDs say it under {@code sequencer} ordering). With a log,
     * {@code sequencerHolds} is what the sequencer's own disk holds of the epoch (0: not said): where it and one
     * follower are a majority, that follower delivers what its own disk holds of it (docs/durability.md).
     */
    record Commit(long epochView, long committed, long stable, long sequencerHolds) implements Msg {
    }

    /**
     * Offload ordering, origin to its epoch's sequencer: grant positions to my broadcasts {@code from}..{@code to}
     * (oseqs) in epoch {@code epochView}; every oseq below {@code firstUnacked} was delivered.
     */
    record Req(long epochView, long from, long to, long firstUnacked) implements Msg {
    }

    /**
     * Offload ordering, sequencer to origin: your broadcasts {@code from}..{@code to} (oseqs; none if {@code from >
     * to}, all ordered already) take the positions from {@code gseq} on, in epoch {@code epochView}.
     */
    record Grant(long epochView, long from, long to, long gseq) implements Msg {
    }

    /**
     * Offload ordering, origin to every member: entry {@code e} of the epoch of view {@code epochView} sequenced by
     * {@code sequencer}, at the position its grant gave (the sender is the origin, so the epoch's sequencer is named).
     */
    record Data(long epochView, MemberId sequencer, Entry e) implements Msg {
    }

    /**
     * A view's coordinator to each member: freeze your epoch and report (the recovery of view {@code view}), if
     * {@code ballot} is above every ballot you promised (else {@link Refused}).
     */
    record StateReq(long view, long ballot) implements Msg {
    }

    /**
     * An epoch a member opened, as it reports it: the ballot that established it, its id, whether it founded the
     * group, its members, its first position, and the older epochs whose history it continued ({@code lineage}).
     */
    record Opened(long ballot, EpochId id, boolean founding, List<MemberId> members, long start,
                  List<EpochPlan.Link> lineage) {
    }

    /**
     * Member to coordinator: what it holds, promising {@code ballot}. {@code epoch} is the last epoch it opened
     * (null when fresh); with {@code shortLog} its log holds that epoch's history only up to {@code last}, short of
     * the epoch's start (a durable member cut back and catching up, or restarted with a log that lost the end of the
     * prefix the epoch began with); {@code marks} is, per origin, the
     * highest oseq in its history up to {@code last}; every entry up to {@code commit} is committed; it can repair
     * the entries after {@code base} (what its log or memory still holds); its application's state is at
     * {@code delivered}; {@code damaged}: positions its log holds
     * but cannot verify; {@code mayHoldFrom}: its log may have held, and acknowledged, entries from there on that it
     * cut after a power loss ({@link Long#MAX_VALUE}: none; {@link EpochPlan.Report#uncertainFrom}); {@code cutBack}:
     * a recovery it has not opened cut it back, and its marks are that recovery's source's
     * ({@link EpochPlan.Report#cutBack}).
     */
    record State(long view, long ballot, boolean fresh, boolean synced, Opened epoch, boolean shortLog, long last,
                 long commit, Map<MemberId, Long> marks, long base, long delivered, List<EpochPlan.Span> damaged,
                 long mayHoldFrom, boolean cutBack) implements Msg {
    }

    /** Member to coordinator: it promised {@code promised}, not below the recovery's {@code ballot}: ask again. */
    record Refused(long view, long ballot, long promised) implements Msg {
    }

    /** Coordinator to the source: send {@code target} your entries in ({@code from}, {@code upTo}]. */
    record SendRepair(long view, MemberId target, long from, long upTo) implements Msg {
    }

    /** Source to a lagging member: entries of the history it misses. */
    record Repair(long view, List<Entry> entries) implements Msg {
    }

    /**
     * Coordinator to member: the epoch of view {@code view} opens at {@code start}, with lineage {@code lineage} (the
     * older epochs whose history it continues, nearest first; empty for a founding). With {@code gap} the member
     * skips to it (its state must be replaced; {@code provider} holds one) and takes {@code marks} as its
     * per-origin marks; with {@code refound} it drops what it holds (a founding that committed nothing);
     * otherwise it first holds everything before {@code start}, after dropping what it holds beyond
     * {@code truncate} (-1: nothing; a tail of another epoch) and taking {@code marks} then. With {@code witness}
     * (-1: none) a member with a gap first holds the entries after that position up to the start: the tail it counts
     * towards when it acknowledges its opening.
     */
    record EpochMsg(long view, long ballot, long start, boolean gap, boolean refound, long truncate,
                    MemberId provider, Map<MemberId, Long> marks, List<EpochPlan.Link> lineage, long witness)
            implements Msg {
    }

    /**
     * Coordinator to a member whose log holds damaged entries that no member here can give and that cannot have been
     * committed (docs/durability.md, "Storage faults"): drop your log after {@code after}, then report again.
     */
    record MendCut(long view, long after) implements Msg {
    }

    /** Coordinator to member: view {@code view} is not primary, and why. */
    record NotPrimary(long view, String reason) implements Msg {
    }

    /** A point-to-point application message. */
    record Direct(byte[] payload) implements Msg {
    }

    /**
     * Sequencer to a member whose acknowledgements stalled: do you still hear me? Answered at once
     * ({@link ProbeReply}), off the ordered path, so a member that is merely slow answers.
     */
    record Probe(long nonce) implements Msg {
    }

    /**
     * The answer to a {@link Probe}, saying whether the prober is a member of the answering member's view, and that
     * view's id ({@code view}; -1: none yet): a sequencer that excluded a member which did not learn it (paused, or
     * cut one way) says so, and that member leaves its stale view (its probes, answered, would otherwise keep its
     * failure detector content forever) — only if the answer's view is newer than its own: an answer checked
     * against an older view (the sequencer not yet past it, or the answer late) says nothing about the current one.
     */
    record ProbeReply(long nonce, boolean member, long view) implements Msg {
    }

    /**
     * A member that no longer hears its sequencer, to another: probe {@code target} for me ({@link SequencerWatch};
     * SWIM's indirect probe). Answered with a {@link Vouch} if the target answers the helper's probe.
     */
    record ProbeFor(MemberId target) implements Msg {
    }

    /** The answer to a {@link ProbeFor}: {@code target} answered this member's probe. */
    record Vouch(MemberId target) implements Msg {
    }

    /**
     * To the member next in line for the sequencer's place: neither I nor anyone I asked hears {@code target};
     * check it yourself (only the next in line can take the sequencer's place).
     */
    record Unreachable(MemberId target) implements Msg {
    }

    /** Whether the bytes are an encoded {@link Ack}. */
    static boolean isAck(byte[] array, int offset, int length) {
        return length == 17 && array != null && array[offset] == Tag.ACK.code;
    }

    /** Each message's type, its first byte. */
    enum Tag {
        FWD(1),
        ORD(2),
        ACK(3),
        STATE_REQ(4),
        STATE(5),
        SEND_REPAIR(6),
        REPAIR(7),
        EPOCH(8),
        DIRECT(9),
        COMMIT(10),
        NOT_PRIMARY(11),
        PROBE(12),
        PROBE_REPLY(13),
        PROBE_FOR(14),
        VOUCH(15),
        UNREACHABLE(16),
        REFUSED(17),
        REQ(18),
        GRANT(19),
        DATA(20),
        MEND_CUT(21);

        private static final Tag[] BY_CODE = new Tag[32];

        static {
            for (Tag t : values()) {
                BY_CODE[t.code] = t;
            }
        }

        final byte code;

        Tag(int code) {
            this.code = (byte) code;
        }

        static Tag of(byte code) {
            Tag t = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
            if (t == null) {
                throw new IllegalArgumentException("unknown message type " + code);
            }
            return t;
        }
    }

    private Wire() {
    }

    static byte[] encode(Msg m) {
        if (m instanceof ReadWire.ReadMsg r) {
            return ReadWire.encode(r);
        } else if (m instanceof Fwd f) {
            return ByteBuffer.allocate(1 + 16 + f.payload().length).put(Tag.FWD.code).putLong(f.oseq())
                    .putLong(f.firstUnacked()).put(f.payload()).array();
        } else if (m instanceof Ord o) {
            byte[] origin = name(o.e().origin());
            return ByteBuffer.allocate(1 + 8 * 4 + 1 + origin.length + 8 + o.e().payload().length).put(Tag.ORD.code)
                    .putLong(o.epochView()).putLong(o.e().gseq()).putLong(o.stable()).putLong(o.committed())
                    .put((byte) origin.length).put(origin).putLong(o.e().oseq()).put(o.e().payload()).array();
        } else if (m instanceof Ack a) {
            return ByteBuffer.allocate(17).put(Tag.ACK.code).putLong(a.epochView()).putLong(a.held()).array();
        } else if (m instanceof Commit c) {
            return ByteBuffer.allocate(33).put(Tag.COMMIT.code).putLong(c.epochView()).putLong(c.committed())
                    .putLong(c.stable()).putLong(c.sequencerHolds()).array();
        } else if (m instanceof Req r) {
            return ByteBuffer.allocate(33).put(Tag.REQ.code).putLong(r.epochView()).putLong(r.from()).putLong(r.to())
                    .putLong(r.firstUnacked()).array();
        } else if (m instanceof Grant g) {
            return ByteBuffer.allocate(33).put(Tag.GRANT.code).putLong(g.epochView()).putLong(g.from()).putLong(g.to())
                    .putLong(g.gseq()).array();
        } else if (m instanceof Data d) {
            byte[] seq = name(d.sequencer());
            byte[] origin = name(d.e().origin());
            return ByteBuffer.allocate(1 + 8 + 1 + seq.length + 8 + 1 + origin.length + 8 + d.e().payload().length)
                    .put(Tag.DATA.code).putLong(d.epochView()).put((byte) seq.length).put(seq).putLong(d.e().gseq())
                    .put((byte) origin.length).put(origin).putLong(d.e().oseq()).put(d.e().payload()).array();
        } else if (m instanceof StateReq r) {
            return ByteBuffer.allocate(17).put(Tag.STATE_REQ.code).putLong(r.view()).putLong(r.ballot()).array();
        } else if (m instanceof Refused r) {
            return ByteBuffer.allocate(25).put(Tag.REFUSED.code).putLong(r.view()).putLong(r.ballot()).putLong(r.promised())
                    .array();
        } else if (m instanceof State s) {
            ByteBuffer b = ByteBuffer.allocate(1 + 8 + 8 + 2 + openedSize(s.epoch()) + 40 + spansSize(s.damaged())
                            + marksSize(s.marks()))
                    .put(Tag.STATE.code).putLong(s.view()).putLong(s.ballot()).put((byte) (s.fresh() ? 1 : 0))
                    .put((byte) ((s.synced() ? 1 : 0) | (s.shortLog() ? 2 : 0) | (s.cutBack() ? 4 : 0)));
            putOpened(b, s.epoch()).putLong(s.last()).putLong(s.commit()).putLong(s.base()).putLong(s.delivered())
                    .putLong(s.mayHoldFrom());
            putSpans(b, s.damaged());
            return putMarks(b, s.marks()).array();
        } else if (m instanceof SendRepair r) {
            byte[] t = name(r.target());
            return ByteBuffer.allocate(1 + 8 + 1 + t.length + 16).put(Tag.SEND_REPAIR.code).putLong(r.view())
                    .put((byte) t.length).put(t).putLong(r.from()).putLong(r.upTo()).array();
        } else if (m instanceof Repair r) {
            return repair(Tag.REPAIR.code, r);
        } else if (m instanceof EpochMsg e) {
            byte[] p = e.provider() == null ? new byte[0] : name(e.provider());
            ByteBuffer b = ByteBuffer.allocate(1 + 8 * 5 + 1 + 1 + p.length + linksSize(e.lineage())
                            + marksSize(e.marks())).put(Tag.EPOCH.code)
                    .putLong(e.view()).putLong(e.ballot()).putLong(e.start()).putLong(e.truncate()).putLong(e.witness())
                    .put((byte) ((e.gap() ? 1 : 0) | (e.refound() ? 2 : 0))).put((byte) p.length).put(p);
            putLinks(b, e.lineage());
            return putMarks(b, e.marks()).array();
        } else if (m instanceof NotPrimary n) {
            byte[] r = n.reason().getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(1 + 8 + 4 + r.length).put(Tag.NOT_PRIMARY.code).putLong(n.view()).putInt(r.length)
                    .put(r).array();
        } else if (m instanceof MendCut c) {
            return ByteBuffer.allocate(17).put(Tag.MEND_CUT.code).putLong(c.view()).putLong(c.after()).array();
        } else if (m instanceof Probe p) {
            return ByteBuffer.allocate(9).put(Tag.PROBE.code).putLong(p.nonce()).array();
        } else if (m instanceof ProbeReply p) {
            return ByteBuffer.allocate(18).put(Tag.PROBE_REPLY.code).putLong(p.nonce()).put((byte) (p.member() ? 1 : 0))
                    .putLong(p.view()).array();
        } else if (m instanceof ProbeFor p) {
            return targeted(Tag.PROBE_FOR.code, p.target());
        } else if (m instanceof Vouch v) {
            return targeted(Tag.VOUCH.code, v.target());
        } else if (m instanceof Unreachable u) {
            return targeted(Tag.UNREACHABLE.code, u.target());
        } else {
            byte[] p = ((Direct) m).payload();
            return ByteBuffer.allocate(1 + p.length).put(Tag.DIRECT.code).put(p).array();
        }
    }

    /** Parses a message; {@link RuntimeException} (e.g. BufferUnderflowException) if malformed. */
    static Msg decode(byte[] msg) {
        ByteBuffer b = ByteBuffer.wrap(msg, 1, msg.length - 1);
        if (ReadWire.owns(msg[0])) {
            return ReadWire.decode(msg[0], b);
        }
        switch (Tag.of(msg[0])) {
            case FWD:
                return new Fwd(b.getLong(), b.getLong(), rest(b));
            case ORD: {
                long epoch = b.getLong();
                long gseq = b.getLong();
                long stable = b.getLong();
                long committed = b.getLong();
                MemberId origin = readName(b);
                return new Ord(epoch, stable, committed, new Entry(gseq, origin, b.getLong(), rest(b)));
            }
            case ACK:
                return new Ack(b.getLong(), b.getLong());
            case COMMIT:
                return new Commit(b.getLong(), b.getLong(), b.getLong(), b.remaining() >= 8 ? b.getLong() : 0);
            case REQ:
                return new Req(b.getLong(), b.getLong(), b.getLong(), b.getLong());
            case GRANT:
                return new Grant(b.getLong(), b.getLong(), b.getLong(), b.getLong());
            case DATA: {
                long epoch = b.getLong();
                MemberId seq = readName(b);
                long gseq = b.getLong();
                MemberId origin = readName(b);
                return new Data(epoch, seq, new Entry(gseq, origin, b.getLong(), rest(b)));
            }
            case STATE_REQ:
                return new StateReq(b.getLong(), b.getLong());
            case REFUSED:
                return new Refused(b.getLong(), b.getLong(), b.getLong());
            case STATE: {
                long view = b.getLong();
                long ballot = b.getLong();
                boolean fresh = b.get() == 1;
                byte flags = b.get();
                boolean synced = (flags & 1) != 0;
                boolean shortLog = (flags & 2) != 0;
                boolean cutBack = (flags & 4) != 0;
                Opened epoch = readOpened(b);
                long last = b.getLong();
                long commit = b.getLong();
                long base = b.getLong();
                long delivered = b.getLong();
                long mayHoldFrom = b.getLong();
                List<EpochPlan.Span> damaged = readSpans(b);
                return new State(view, ballot, fresh, synced, epoch, shortLog, last, commit, readMarks(b), base,
                        delivered, damaged, mayHoldFrom, cutBack);
            }
            case SEND_REPAIR:
                return new SendRepair(b.getLong(), readName(b), b.getLong(), b.getLong());
            case REPAIR:
                return readRepair(b);
            case EPOCH: {
                long view = b.getLong();
                long ballot = b.getLong();
                long start = b.getLong();
                long truncate = b.getLong();
                long witness = b.getLong();
                byte flags = b.get();
                MemberId provider = readNameOrNull(b);
                List<EpochPlan.Link> lineage = readLinks(b);
                return new EpochMsg(view, ballot, start, (flags & 1) != 0, (flags & 2) != 0, truncate, provider,
                        readMarks(b), lineage, witness);
            }
            case NOT_PRIMARY: {
                long view = b.getLong();
                byte[] r = new byte[b.getInt()];
                b.get(r);
                return new NotPrimary(view, new String(r, StandardCharsets.UTF_8));
            }
            case DIRECT:
                return new Direct(rest(b));
            case MEND_CUT:
                return new MendCut(b.getLong(), b.getLong());
            case PROBE:
                return new Probe(b.getLong());
            case PROBE_REPLY:
                return new ProbeReply(b.getLong(), b.get() != 0, b.getLong());
            case PROBE_FOR:
                return new ProbeFor(readName(b));
            case VOUCH:
                return new Vouch(readName(b));
            case UNREACHABLE:
                return new Unreachable(readName(b));
            default:
                throw new IllegalStateException("no decoder for " + msg[0]);
        }
    }

    // ================================ the codecs of Wire's own records ================================

    static byte[] repair(byte tag, Repair r) {
        int size = 1 + 8 + 4;
        for (Entry e : r.entries()) {
            size += 8 + 1 + name(e.origin()).length + 8 + 4 + e.payload().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).put(tag).putLong(r.view()).putInt(r.entries().size());
        for (Entry e : r.entries()) {
            byte[] o = name(e.origin());
            b.putLong(e.gseq()).put((byte) o.length).put(o).putLong(e.oseq()).putInt(e.payload().length)
                    .put(e.payload());
        }
        return b.array();
    }

    static Repair readRepair(ByteBuffer b) {
        long view = b.getLong();
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("repair of " + n + " entries in " + b.remaining() + " bytes");
        }
        List<Entry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long gseq = b.getLong();
            MemberId origin = readName(b);
            long oseq = b.getLong();
            byte[] p = new byte[b.getInt()];
            b.get(p);
            out.add(new Entry(gseq, origin, oseq, p));
        }
        return new Repair(view, out);
    }

    static int openedSize(Opened o) {
        return 1 + (o == null ? 0 : 8 + epochIdSize(o.id()) + 1 + namesSize(o.members()) + 8 + linksSize(o.lineage()));
    }

    /** A reported epoch: a presence byte, then its fields. */
    static ByteBuffer putOpened(ByteBuffer b, Opened o) {
        if (o == null) {
            return b.put((byte) 0);
        }
        b.put((byte) 1).putLong(o.ballot());
        putEpochId(b, o.id()).put((byte) (o.founding() ? 1 : 0));
        putNames(b, o.members()).putLong(o.start());
        return putLinks(b, o.lineage());
    }

    static Opened readOpened(ByteBuffer b) {
        if (b.get() == 0) {
            return null;
        }
        long ballot = b.getLong();
        EpochId id = readEpochId(b);
        boolean founding = b.get() == 1;
        List<MemberId> members = readNames(b);
        long start = b.getLong();
        return new Opened(ballot, id, founding, members, start, readLinks(b));
    }
}
