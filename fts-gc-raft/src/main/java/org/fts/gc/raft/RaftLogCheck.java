package org.fts.gc.raft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads jgroups-raft 1.1.4's {@code entries.raft} record by record, before jgroups-raft does, to tell a torn tail from
 * a damaged disk (docs/durability.md, "Storage faults"). jgroups-raft stops reading at the first record whose header
 * does not check (magic, term, index, lengths), and does not check payloads: a damaged record followed by valid ones
 * would silently end its log there, and a member that lost entries it acknowledged could then help elect a leader
 * without them. Here a record is valid if its header checks, its index follows the previous one, and, for FTS's
 * entries, its payload's checksum verifies ({@link Ledger#body}), and its term is not below the previous one's (the
 * header's term has no check of its own: a damaged term that stays in order goes unseen); when the valid prefix ends, the rest of the file is
 * searched for valid FTS entries: if there are some, the log is damaged (not torn), and {@link Result#reach} is the
 * last index found. A damaged last record cannot be told from a torn write this way (jgroups-raft records no synced
 * point): it counts as torn.
 *
 * <pre>
 *   record := magic:u8 (1) totalLength:u32 term:u64 index:u64 internal:u8 dataLength:u32 data{dataLength}
 * </pre>
 */
final class RaftLogCheck {
    static final String FILE = "entries.raft";
    static final int HEADER = 26;

    /**
     * @param validEnd the length of the valid prefix, in bytes
     * @param lastGood the index of its last record (0 if none)
     * @param reach    the last index of a valid FTS entry after the damage, or 0: no damage (at most a torn tail)
     * @param tail     whether bytes other than zeros (jgroups-raft's write-ahead) follow the valid prefix
     */
    record Result(long validEnd, long lastGood, long reach, boolean tail) {
        boolean damaged() {
            return reach > 0;
        }
    }

    private record Rec(long term, long index, boolean internal, int dataAt, int dataLength, int next) {
    }

    private RaftLogCheck() {
    }

    static Result scan(Path file) throws IOException {
        if (!Files.exists(file)) {
            return new Result(0, 0, 0, false);
        }
        byte[] all = Files.readAllBytes(file);
        int pos = 0;
        long prev = 0;
        long term = 0;
        while (true) {
            Rec r = read(all, pos);
            // terms never go down along a log: a term that does is a damaged header field (the one its checks miss)
            // the first record may be the empty one a snapshot's installation writes (reinitializeTo)
            if (r == null || prev > 0 && r.index() != prev + 1 || r.term() < term
                    || !r.internal() && !(pos == 0 && r.dataLength() == 0)
                    && Ledger.body(all, r.dataAt(), r.dataLength()) < 0) {
                break;
            }
            prev = r.index();
            term = r.term();
            pos = r.next();
        }
        long reach = 0;
        for (int q = pos + 1; q + HEADER <= all.length; q++) {
            Rec r = read(all, q);
            // evidence of records written after the damage: an FTS entry whose checksum verifies (internal records carry
            // none, and a header alone could be a pattern inside a payload)
            if (r != null && r.index() > prev && !r.internal() && r.dataLength() > 0
                    && all[r.dataAt()] == Ledger.VERSION && Ledger.body(all, r.dataAt(), r.dataLength()) >= 0) {
                reach = Math.max(reach, r.index());
                q = r.next() - 1;
            }
        }
        boolean tail = false;
        for (int q = pos; q < all.length && !tail; q++) {
            tail = all[q] != 0;
        }
        return new Result(pos, prev, reach, tail);
    }

    /**
     * Writes the empty first record that stands for a snapshot's last entry, if the file's first record is not there.
     * jgroups-raft 1.1.4's {@code reinitializeTo} (a snapshot installed from the leader) leaves it all zeros while the
     * records after it are written: read again, such a log is empty, and the entries after the snapshot, some of them
     * acknowledged, are silently gone. Returns whether it wrote.
     */
    static boolean writeFirst(Path file, long term, long index, byte[] data, int offset, int length, boolean sync)
            throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer head = ByteBuffer.allocate(HEADER);
            while (head.hasRemaining() && ch.read(head, head.position()) > 0) {
                // read the whole header
            }
            if (head.get(0) != 0) {
                return false;
            }
            ByteBuffer rec = ByteBuffer.allocate(HEADER + length).put((byte) 1).putInt(HEADER + length).putLong(term)
                    .putLong(index).put((byte) 0).putInt(length).put(data == null ? new byte[0] : data, offset, length)
                    .flip();
            while (rec.hasRemaining()) {
                ch.write(rec, rec.position());
            }
            if (sync) {
                ch.force(true);
            }
            return true;
        }
    }

    /**
     * Mends a log that {@link #writeFirst} came too late for (written by a version without it): a zeroed first record
     * followed by a valid one at index i is rewritten as the empty record of index i-1, with the term of the record after
     * it (the true term, which nothing recorded, is not above it: a follower whose check at i-1 fails on it asks the
     * leader for earlier entries, or a snapshot). Only for a log behind a snapshot (its first record is never applied
     * again); without one, a zeroed first record is damage. Returns the index written, or 0 if the log had no such
     * record.
     */
    static long mendZeroedFirst(Path file, boolean sync) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        byte[] all = Files.readAllBytes(file);
        for (int i = 0; i < Math.min(HEADER, all.length); i++) {
            if (all[i] != 0) {
                return 0;
            }
        }
        Rec next = read(all, HEADER);
        if (next == null || next.index() < 2) {
            return 0;
        }
        writeFirst(file, next.term(), next.index() - 1, null, 0, 0, sync);
        return next.index() - 1;
    }

    /** The record at {@code pos} if its header checks and its data is all there, else null. */
    private static Rec read(byte[] all, int pos) {
        if (pos < 0 || pos + HEADER > all.length || all[pos] != 1) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(all, pos, HEADER);
        b.get();
        int total = b.getInt();
        long term = b.getLong();
        long index = b.getLong();
        byte internal = b.get();
        int length = b.getInt();
        if (term <= 0 || index <= 0 || length < 0 || total != length + HEADER || (internal & ~1) != 0
                || (long) pos + HEADER + length > all.length) {
            return null;
        }
        return new Rec(term, index, internal == 1, pos + HEADER, length, pos + HEADER + length);
    }
}
