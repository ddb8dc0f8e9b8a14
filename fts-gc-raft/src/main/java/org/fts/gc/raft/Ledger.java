package org.fts.gc.raft;

import java.io.DataInput;
import java.io.DataOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.fts.gc.Checkpoint;

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
 *   entry := 0xC1 crc:u32 nameLength:u16 origin{nameLength} oseq:long payload     crc: CRC-32C of what follows it
 * </pre>
 * The checksum is verified before an entry is applied (jgroups-raft's file log checks its record headers, not their
 * payloads): a damaged entry stops the replica rather than reach its application ({@link DamagedEntryException};
 * docs/durability.md, "Storage faults"). Entries of the format before it (no version byte, no checksum) are read as
 * they are.
 *
 * <p>Snapshots ({@link Retained}): the application's newest checkpoint and the entries applied after it. A member
 * restarting on a snapshot with nothing applied yet hands the state to its application ({@link Sink#restore}) and
 * applies the entries again; a member that had applied entries (a follower the leader's compacted log left behind)
 * applies them without delivering and tells its application what it missed ({@link Sink#skipped}): it fetches the
 * state from a live replica, as after a shed.
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

        /** The application should checkpoint its state here, after the last entry delivered. */
        void checkpoint(Checkpoint checkpoint);

        /**
         * A snapshot read before anything was applied: whether the application may take its state ({@link #restore});
         * if not, the snapshot's entries are applied without delivery and {@link #skipped} follows.
         */
        boolean mayRestore();

        /** The application's state after {@code position} entries, to go on from: before any delivery. */
        void restore(long position, byte[] state);

        /**
         * A snapshot took the place of {@code missed} entries this member did not deliver. Called before any of the
         * snapshot's entries is {@link #applied}: a position reached without delivery must find the application
         * told it fell behind (a read released by it, queued behind this, is refused, not served from a stale
         * state: chaos partition seed 23 on raft).
         */
        void skipped(long missed);

        /** Whether a snapshot can be taken now (false: the application saved no checkpoint lately). */
        void snapshots(boolean possible);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Ledger.class);
    private final Map<String, Long> marks = new HashMap<>();
    private final String name;
    private final Sink sink;
    /** RAFT's commit index: the index of the state when a snapshot is written (on RAFT's thread). */
    private final java.util.function.LongSupplier commitIndex;
    /** The log index of the last snapshot read, 0 before one. */
    private long snapshotIndex;
    private final Retained retained;
    /** Entries applied (no-ops aside): the position of the delivery order, as far as this member knows it. */
    private long applied;
    private boolean snapshots;
    /** A snapshot is being read: no checkpoint may be asked for (see kept). */
    private boolean reading;

    Ledger(String name, Sink sink, Retained retained, java.util.function.LongSupplier commitIndex) {
        this.commitIndex = commitIndex;
        this.name = name;
        this.sink = sink;
        this.retained = retained;
    }

    /**
     * The entry a leader appends after a view change: it delivers nothing, but its AppendEntries reach every member
     * of the view, and a member that merged into an idle group learns the leader and the term from them
     * (jgroups-raft tells joiners, not merged members: without it such a member waited for the next broadcast).
     */
    static final byte[] NOOP = encode("", 0, new byte[0]);
    /**
     * The read-index entry (docs/reads.md): appended like any entry, and applied by every member as a no-op; where it
     * is appended (the leader), applying it answers how many entries had been applied before it, a position every
     * write answered before the read began precedes, since the entry was committed by a majority after the read
     * began. Not jgroups-raft's read-only request: in 1.1.4 a batch of requests holding only read-only ones makes the
     * leader commit everything it appended, acknowledged or not ({@code RaftChannelTest}, an isolated leader).
     */
    static final byte[] READ_INDEX = encode("", 1, new byte[0]);
    /** The first byte of an entry with a checksum. */
    static final byte VERSION = (byte) 0xC1;
    private static final int PREFIX = 5;

    /** An entry whose checksum fails: its bytes are not what was appended. */
    static final class DamagedEntryException extends RuntimeException {
        DamagedEntryException(String message) {
            super(message);
        }
    }

    static byte[] encode(String origin, long oseq, byte[] payload) {
        byte[] name = origin.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(PREFIX + 2 + name.length + 8 + payload.length);
        b.put(VERSION).putInt(0).putShort((short) name.length).put(name).putLong(oseq).put(payload);
        byte[] out = b.array();
        ByteBuffer.wrap(out, 1, 4).putInt(crc(out, PREFIX, out.length - PREFIX));
        return out;
    }

    /**
     * Where an entry's body (nameLength onwards) starts: after its checksum, verified, or at once for an entry of the
     * format without one; -1 if it is damaged (its checksum fails, or its first byte is neither format's).
     */
    static int body(byte[] data, int offset, int length) {
        if (length >= PREFIX && data[offset] == VERSION) {
            int stored = ByteBuffer.wrap(data, offset + 1, 4).getInt();
            return stored == crc(data, offset + PREFIX, length - PREFIX) ? offset + PREFIX : -1;
        }
        return length >= 2 && data[offset] == 0 ? offset : -1;   // names are shorter than 256 bytes
    }

    private static int crc(byte[] data, int offset, int length) {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(data, offset, length);
        return (int) c.getValue();
    }

    @Override
    public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        if (length == READ_INDEX.length && java.util.Arrays.equals(data, offset, offset + length, READ_INDEX, 0, length)) {
            return ByteBuffer.allocate(8).putLong(applied).array();
        }
        try {
            if (applyEntry(data, offset, length, true)) {
                kept(data, offset, length);
            }
        } catch (DamagedEntryException e) {
            // the state machine cannot skip it (every member applies the same entries) nor apply it: fail-stop; at the
            // restart the log check finds the damaged record and the member fetches it again (SyncedSnapshotLog)
            org.fts.gc.FailStop.fatal(e);
            throw e;
        }
        return null;
    }

    /** How many entries (no-ops aside) this member applied: positions comparable between members. */
    long applied() {
        return applied;
    }

    /**
     * An applied entry kept for snapshots; a checkpoint asked for when one is due, unless a snapshot is being read:
     * the application's state is then not the state at the cut (it has not seen the snapshot's entries).
     */
    private void kept(byte[] data, int offset, int length) {
        Retained.Cut cut = retained.applied(data, offset, length, applied, marks);
        if (cut != null && reading) {
            retained.skipped(cut);
        } else if (cut != null) {
            sink.checkpoint(checkpoint(cut));
        }
        boolean possible = retained.complete();
        if (possible != snapshots) {
            snapshots = possible;
            sink.snapshots(possible);
        }
    }

    /** Whether applying {@code entry} counts a position (not a no-op; a damaged one counts: it stops the member). */
    private static boolean counts(byte[] entry) {
        int body = body(entry, 0, entry.length);
        return body < 0 || entry.length - body < 2 || ByteBuffer.wrap(entry, body, 2).getShort() != 0;
    }

    /** Applies one entry ({@code deliver}: or only its marks); false for a no-op. */
    private boolean applyEntry(byte[] data, int offset, int length, boolean deliver) {
        int body = body(data, offset, length);
        if (body < 0) {
            throw new DamagedEntryException(name + ": the entry after position " + applied + " (" + length + " bytes) "
                    + "fails its checksum: its bytes are not what was appended");
        }
        ByteBuffer b = ByteBuffer.wrap(data, body, length - (body - offset));
        int nameLength = Short.toUnsignedInt(b.getShort());
        if (nameLength == 0) {
            return false;   // a leader's no-op (NOOP): it only makes AppendEntries reach every member
        }
        applied++;
        String origin = new String(data, b.position(), nameLength, StandardCharsets.UTF_8);
        b.position(b.position() + nameLength);
        long oseq = b.getLong();
        long mark = marks.getOrDefault(origin, 0L);
        if (oseq == mark + 1) {
            marks.put(origin, oseq);
            if (deliver) {
                byte[] payload = new byte[b.remaining()];
                b.get(payload);
                sink.deliver(origin, payload);
            }
            mark = oseq;
        } else if (oseq > mark + 1 && LOG.isDebugEnabled()) {
            LOG.debug("{}: entry {} skipped: {} is next (committed out of order; its origin appends again)", origin,
                    oseq, mark + 1);
        }
        sink.applied(origin, mark);
        return true;
    }

    private Checkpoint checkpoint(Retained.Cut cut) {
        return new Checkpoint() {
            @Override
            public long position() {
                return cut.base().position();
            }

            @Override
            public void save(byte[] state) {
                retained.saved(cut, state);
            }

            @Override
            public void skip(String why) {
                LOG.debug("{}: checkpoint at {} skipped: {}", name, cut.base().position(), why);
                retained.skipped(cut);
            }
        };
    }

    /** The log index the last snapshot read stands for (FtsRaft applies the log after it). */
    long snapshotIndex() {
        return snapshotIndex;
    }

    /** {@code snapshot := index:long} {@link Retained}'s. */
    @Override
    public void writeContentTo(DataOutput out) throws Exception {
        out.writeLong(commitIndex.getAsLong());
        retained.write(out);
    }

    @Override
    public void readContentFrom(DataInput in) throws Exception {
        snapshotIndex = in.readLong();
        Retained.Snapshot s = retained.read(in);
        long before = applied;
        boolean restore = before == 0 && sink.mayRestore();
        marks.clear();
        marks.putAll(s.base().marks());
        applied = s.base().position();
        if (restore && s.base().state() != null) {
            sink.restore(applied, s.base().state());
        }
        long missed = applied + s.tail().stream().filter(Ledger::counts).count() - before;
        if (!restore) {   // first: a read barrier must not be released by these positions while the state looks current
            sink.skipped(missed);
        }
        reading = true;
        try {
            for (byte[] e : s.tail()) {
                if (applyEntry(e, 0, e.length, restore)) {
                    kept(e, 0, e.length);   // kept again: this member's next snapshot holds them too
                }
            }
        } finally {
            reading = false;
        }
        LOG.info("{}: a snapshot installed: a state after {} entries{} and {} entries after it, {}", name,
                s.base().position(),
                s.base().state() == null ? " (the initial one)" : "", s.tail().size(),
                restore ? "delivered" : "applied without delivery (" + missed + " entries missed)");
    }
}
