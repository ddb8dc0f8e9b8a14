package org.fts.gc.raft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

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
            if (r == null || prev > 0 && r.index() != prev + 1 || r.term() < term
                    || !r.internal() && Ledger.body(all, r.dataAt(), r.dataLength()) < 0) {
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
