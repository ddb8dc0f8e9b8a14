package org.fts.gc.raft;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.internal.Marks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a raft member keeps in memory so that jgroups-raft can take a snapshot at any commit index without waiting
 * for the application (docs/group-communication.md, "Snapshots"): the application's newest checkpoint (its state at
 * a cut of the delivery order, with the {@link Ledger}'s marks at that cut) and every entry applied after the cut.
 * A snapshot is that pair; installing it means installing the state and applying the entries again.
 *
 * <p>A cut is asked for once {@code every} bytes of entries were applied since the last one; when the application
 * saves its state, that checkpoint becomes the base and the entries before the cut are dropped. Until the first
 * checkpoint is saved nothing is kept and no snapshot can be taken ({@link #complete()} is false): the log is
 * not compacted, so no member can fall behind a compacted log and need a snapshot nobody can give (an application
 * that never checkpoints keeps its whole log, as with the jgroups binding). Should the application save none for
 * {@code cap} bytes later on, the entries are dropped and snapshots stop again until a later cut is saved (memory
 * stays bounded; a follower behind the leader's compacted log then waits for that checkpoint).
 *
 * <pre>
 *   snapshot := FORMAT:int position:long marks state tail
 *   marks    := count:int (origin:utf mark:long){count}      ({@link Marks})
 *   state    := -1:int | length:int bytes{length}
 *   tail     := count:int (length:int bytes{length}){count}
 * </pre>
 *
 * Thread-safe: entries and snapshots come from RAFT's thread, saves from the application's.
 */
final class Retained {
    private static final Logger LOG = LoggerFactory.getLogger(Retained.class);
    static final int FORMAT = 1;

    /** The application's state after {@code position} entries, and the ledger's marks then; state null: initial. */
    record Base(long position, Map<String, Long> marks, byte[] state) {
    }

    /** A cut being checkpointed: the entries after it are kept apart until its state is saved or skipped. */
    record Cut(long generation, Base base, List<byte[]> tail, long[] bytes) {
    }

    /** A snapshot read back. */
    record Snapshot(Base base, List<byte[]> tail) {
    }

    private final String name;
    private final long every;
    private final long cap;
    private Base base;
    private List<byte[]> tail = new ArrayList<>();
    private long tailBytes;
    private long sinceCut;
    private boolean complete;
    private Cut cut;
    private long generation;

    Retained(String name, long every, long cap) {
        this.name = name;
        this.every = every;
        this.cap = cap;
    }

    /**
     * An entry ({@code length} bytes of {@code data} from {@code offset}) was applied; {@code position} entries now,
     * {@code marks} the ledger's marks after it. Copied only if kept. Returns the cut to checkpoint now, or null.
     */
    synchronized Cut applied(byte[] data, int offset, int length, long position, Map<String, Long> marks) {
        byte[] entry = complete || cut != null ? java.util.Arrays.copyOfRange(data, offset, offset + length) : null;
        if (complete) {
            tail.add(entry);
            tailBytes += length;
            if (tailBytes > cap) {
                LOG.warn("{}: the application saved no checkpoint for {} bytes of entries: no raft snapshot until it "
                        + "does", name, tailBytes);
                complete = false;
                tail = new ArrayList<>();
                tailBytes = 0;
            }
        }
        if (cut != null) {
            cut.tail().add(entry);
            cut.bytes()[0] += length;
            return null;
        }
        sinceCut += length;
        if (sinceCut < every) {
            return null;
        }
        sinceCut = 0;
        cut = new Cut(++generation, new Base(position, Map.copyOf(marks), null), new ArrayList<>(), new long[1]);
        return cut;
    }

    /** The application saved {@code state} for {@code c}: it becomes the base, unless a snapshot replaced it. */
    synchronized void saved(Cut c, byte[] state) {
        if (cut != c) {
            return;
        }
        base = new Base(c.base().position(), c.base().marks(), state);
        tail = c.tail();
        tailBytes = c.bytes()[0];
        complete = true;
        cut = null;
    }

    /** The application did not save a state for {@code c}. */
    synchronized void skipped(Cut c) {
        if (cut == c) {
            cut = null;
        }
    }

    /** Whether base and tail hold the whole history, so that a snapshot can be written. */
    synchronized boolean complete() {
        return complete;
    }

    /** Writes the snapshot; fails when not {@link #complete()}. */
    synchronized void write(DataOutput out) throws IOException {
        if (!complete) {
            throw new IOException(name + ": no checkpoint of the application covers the history yet");
        }
        out.writeInt(FORMAT);
        out.writeLong(base.position());
        Marks.write(out, base.marks());
        bytes(out, base.state());
        out.writeInt(tail.size());
        for (byte[] e : tail) {
            bytes(out, e);
        }
    }

    /** Reads a snapshot and makes its base the base here, with no tail (its entries are applied again). */
    synchronized Snapshot read(DataInput in) throws IOException {
        int format = in.readInt();
        if (format != FORMAT) {
            throw new IOException(name + ": a snapshot of format " + format + ", not " + FORMAT);
        }
        long position = in.readLong();
        Map<String, Long> marks = Marks.read(in);
        byte[] state = bytes(in);
        List<byte[]> entries = new ArrayList<>();
        for (int i = in.readInt(); i > 0; i--) {
            entries.add(bytes(in));
        }
        base = new Base(position, Map.copyOf(marks), state);
        tail = new ArrayList<>();
        tailBytes = 0;
        sinceCut = 0;
        complete = true;
        cut = null;
        generation++;
        return new Snapshot(base, entries);
    }

    private static void bytes(DataOutput out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] bytes(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
