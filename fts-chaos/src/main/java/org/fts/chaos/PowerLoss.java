package org.fts.chaos;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * A power loss played on a stopped replica's log ({@code fts.gc=jgroups}, {@code fts.durability=log}), on the log's
 * documented format (docs/durability.md, "Format"), after a {@code kill -9} that left the page cache whole:
 * <ul>
 *   <li>what no sync covered is gone: the records after the one its {@code synced.mark} names are zeroed (the file
 *       was zero-filled ahead), and, one time in two, the first of them torn (its first bytes kept, as a write the
 *       disk had half done);</li>
 *   <li>the mark, never synced itself, lags: it names the sync before the last one (the {@code synced} field of the last
 *       synced record), and it was written in another boot;</li>
 *   <li>with {@code damage}, the disk also damaged the batch synced last: one byte of the last synced record's payload
 *       flipped (what recovery cannot tell from a torn write once the mark lags).</li>
 * </ul>
 * Only the newest segment is touched; a replica whose unsynced records reach into an older one keeps them (rare: a
 * segment rolls over every 64 MiB).
 */
final class PowerLoss {
    private static final int HEADER = 16;
    private static final int RECORD_HEADER = 32;

    /** What the power loss left: the last index synced, and what was done (for the fault log). */
    record Result(long synced, String did) {
    }

    private PowerLoss() {
    }

    /** Plays it on the log under {@code replicaDir}; {@code damage}: the batch synced last damaged too (never torn). */
    static Result apply(Path replicaDir, boolean damage, Random rnd) throws IOException {
        Path logDir = replicaDir.resolve("log");
        Path segment = DiskDamage.newest(replicaDir);
        long synced = markIndex(logDir.resolve("synced.mark"));
        byte[] data = Files.readAllBytes(segment);
        List<long[]> records = new ArrayList<>();   // offset, end, index, synced field
        int pos = Math.min(HEADER, data.length);
        while (pos + RECORD_HEADER <= data.length) {
            ByteBuffer b = ByteBuffer.wrap(data, pos, RECORD_HEADER);
            int length = b.getInt(pos + 4);
            int meta = b.getShort(pos + 8) & 0xffff;
            long index = b.getLong(pos + 12);
            long end = (long) pos + RECORD_HEADER + meta + length;
            if (length < 0 || end > data.length || index == 0 && length == 0) {
                break;
            }
            records.add(new long[] {pos, end, index, b.getLong(pos + 20)});
            pos = (int) end;
        }
        StringBuilder did = new StringBuilder();
        long[] last = null;
        long unsyncedFrom = -1;
        for (long[] r : records) {
            if (r[2] <= synced) {
                last = r;
            } else if (unsyncedFrom < 0) {
                unsyncedFrom = r[0];
            }
        }
        long recordsEnd = records.isEmpty() ? HEADER : records.get(records.size() - 1)[1];
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            if (unsyncedFrom >= 0) {
                long keep = unsyncedFrom;
                // torn: the disk had written the start of it (never on the damaged one: a torn record whose header
                // survived would carry the last sync point and prove the damaged batch synced)
                if (!damage && rnd.nextBoolean()) {
                    keep += 1 + rnd.nextInt((int) Math.max(1, Math.min(recordsEnd - unsyncedFrom - 1, 4096)));
                }
                f.seek(keep);
                f.write(new byte[(int) (recordsEnd - keep)]);
                did.append(String.format(Locale.ROOT, "zeroed what was not synced (%d bytes after index %d%s)",
                        recordsEnd - keep, synced, keep > unsyncedFrom ? ", the first record torn" : ""));
            } else {
                did.append("everything was synced");
            }
            if (last == null) {
                return new Result(synced, did.append("; no synced record in ").append(segment.getFileName()).toString());
            }
            writeMark(logDir.resolve("synced.mark"), last[3]);
            did.append("; the mark lags: it names ").append(last[3]).append(" (written in another boot), not ")
                    .append(synced);
            if (damage) {
                long at = last[1] - 1 - rnd.nextInt((int) Math.max(1, Math.min(16, last[1] - last[0] - RECORD_HEADER)));
                f.seek(at);
                int v = f.read();
                f.seek(at);
                f.write(v ^ 0x5a);
                did.append(String.format(Locale.ROOT, "; damaged record %d, synced last (the byte at offset %d of %s)",
                        last[2], at, segment.getFileName()));
            }
        }
        return new Result(synced, did.toString());
    }

    /** The index a mark names (either form: docs/durability.md), or -1. */
    private static long markIndex(Path mark) throws IOException {
        if (!Files.exists(mark)) {
            return -1;
        }
        byte[] b = Files.readAllBytes(mark);
        return b.length >= 12 && b[0] == 'F' && b[1] == 'T' && b[2] == 'S' && b[3] == 'D'
                ? ByteBuffer.wrap(b).getLong(4) : -1;
    }

    /** {@code "FTSD" index:u64 boot:16 crc:u32}, the boot all zeros: not this one. */
    private static void writeMark(Path mark, long index) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(32).put(new byte[] {'F', 'T', 'S', 'D'}).putLong(index).put(new byte[16]);
        CRC32C c = new CRC32C();
        c.update(b.array(), 4, 24);
        b.putInt((int) c.getValue());
        Files.write(mark, b.array());
    }
}
