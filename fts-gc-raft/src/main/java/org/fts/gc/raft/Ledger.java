package org.fts.gc.raft;

import java.io.DataInput;
import java.io.DataOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.jgroups.raft.StateMachine;

/**
 * The replicated state machine under the raft binding: it turns committed log entries into deliveries, exactly
 * once and FIFO per origin. jgroups-raft neither deduplicates a retried append nor keeps a member's appends in
 * order across a leader change, so every entry carries its origin (a member incarnation) and that origin's
 * sequence number; an entry is delivered only if it is the next of its origin ({@code oseq == mark + 1}), and
 * skipped otherwise: a duplicate ({@code oseq <= mark}), or one committed ahead of an earlier one that a leader
 * change lost (its origin sends again from its first entry not applied). The marks are part of the replicated
 * state, changed only here, in log order, so every member skips the same entries.
 *
 * <pre>
 *   entry := nameLength:u16 origin{nameLength} oseq:long payload
 * </pre>
 *
 * Called by jgroups-raft on its single processing thread (and on the connecting thread while a restarted member
 * replays its log), never concurrently.
 */
final class Ledger implements StateMachine {

    /** Where applied entries go. Never blocks. */
    interface Sink {
        /** The next broadcast of {@code origin}, in the group's order. */
        void deliver(String origin, byte[] payload);

        /** Every entry of {@code origin} up to {@code oseq} has been applied (delivered or skipped as a duplicate). */
        void applied(String origin, long oseq);

        /** A snapshot replaced the state: the deliveries before it were not seen here. */
        void installed();
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Ledger.class);
    private final Map<String, Long> marks = new HashMap<>();
    private final Sink sink;

    Ledger(Sink sink) {
        this.sink = sink;
    }

    /**
     * The entry a leader appends after a view change: it delivers nothing, but its AppendEntries reach every member
     * of the view, and a member that merged into an idle group learns the leader and the term from them
     * (jgroups-raft tells joiners, not merged members: without it such a member waited for the next broadcast).
     */
    static final byte[] NOOP = {0, 0};

    static byte[] encode(String origin, long oseq, byte[] payload) {
        byte[] name = origin.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + name.length + 8 + payload.length).putShort((short) name.length).put(name)
                .putLong(oseq).put(payload).array();
    }

    @Override
    public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        ByteBuffer b = ByteBuffer.wrap(data, offset, length);
        int nameLength = Short.toUnsignedInt(b.getShort());
        if (nameLength == 0) {
            return null;   // a leader's no-op (NOOP): it only makes AppendEntries reach every member
        }
        String origin = new String(data, b.position(), nameLength, StandardCharsets.UTF_8);
        b.position(b.position() + nameLength);
        long oseq = b.getLong();
        long mark = marks.getOrDefault(origin, 0L);
        if (oseq == mark + 1) {
            byte[] payload = new byte[b.remaining()];
            b.get(payload);
            marks.put(origin, oseq);
            sink.deliver(origin, payload);
            mark = oseq;
        } else if (oseq > mark + 1 && LOG.isDebugEnabled()) {
            LOG.debug("{}: entry {} skipped: {} is next (committed out of order; its origin appends again)", origin,
                    oseq, mark + 1);
        }
        sink.applied(origin, mark);
        return null;
    }

    @Override
    public void writeContentTo(DataOutput out) throws Exception {
        out.writeInt(marks.size());
        for (Map.Entry<String, Long> m : marks.entrySet()) {
            out.writeUTF(m.getKey());
            out.writeLong(m.getValue());
        }
    }

    @Override
    public void readContentFrom(DataInput in) throws Exception {
        marks.clear();
        for (int i = in.readInt(); i > 0; i--) {
            marks.put(in.readUTF(), in.readLong());
        }
        sink.installed();
    }
}
