package org.fts.gc.raft;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import org.fts.log.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A raft member whose log is damaged (a record that does not verify, with valid ones after it: {@link RaftLogCheck}),
 * in the manner of CTRL (Alagappan et al., FAST 2018): its log is cut before the damaged record, so that the leader
 * sends it the entries again, and until its log reaches the last index it held (the {@code reach}) it takes no part in
 * elections ({@link VoteQuarantine}): it may have acknowledged entries it no longer holds, so it must not help elect a
 * leader without them. The reach is written (synced, atomically) before the log is cut, and read at every start, so a
 * crash in between keeps the member out of elections; it is removed once the log reaches it.
 *
 * <pre>
 *   fts-quarantine.raft := reach:u64 crc:u32     crc: CRC-32C of reach
 * </pre>
 */
final class Quarantine {
    static final String FILE = "fts-quarantine.raft";
    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    private Quarantine() {
    }

    /**
     * Checks the log in {@code dir} before jgroups-raft reads it; if it is damaged, records the reach, cuts the log
     * before the damaged record and lowers the recorded commit index to what is left. Returns the reach this member
     * must get back to before it votes (0: none).
     *
     * @param snapshot whether a snapshot stands for the entries before the log's first record
     */
    static long prepare(Path dir, boolean snapshot) throws IOException {
        long reach = read(dir);
        Path entries = dir.resolve(RaftLogCheck.FILE);
        // only behind a snapshot: there the first record is never applied (it is at or before the snapshot's index)
        long mended = snapshot ? RaftLogCheck.mendZeroedFirst(entries, true) : 0;
        if (mended > 0) {
            LOG.warn("{}: its first record (index {}, a snapshot's last entry) was never written (jgroups-raft 1.1.4's "
                    + "reinitializeTo): written now, with the term of the record after it", entries, mended);
        }
        RaftLogCheck.Result r = RaftLogCheck.scan(entries);
        if (!r.damaged()) {
            if (r.tail()) {
                // a torn write (or a damaged last record, which cannot be told from one): jgroups-raft would read a
                // record whose payload fails its checksum as valid, and the member would stop at applying it
                cut(dir, entries, r);
                LOG.warn("{}: a torn tail after index {} cut off (no record that verifies follows)", entries,
                        r.lastGood());
            }
            return reach;
        }
        if (r.validEnd() == 0 && snapshot) {
            throw new IOException(entries + ": its first record (after the snapshot) is damaged, and records that verify "
                    + "follow: the log cannot be cut before it; move this replica's directory " + dir + " aside and "
                    + "start it again to fetch the group's state (docs/durability.md, \"Storage faults\")");
        }
        reach = Math.max(reach, r.reach());
        write(dir, reach);
        cut(dir, entries, r);
        LOG.warn("{}: the record after index {} is damaged (a damaged disk, not a torn write: records that verify follow, "
                + "up to index {}): the log is cut before it and fetched again from the leader; until it reaches {} this "
                + "member takes no part in elections", entries, r.lastGood(), r.reach(), reach);
        return reach;
    }

    private static void cut(Path dir, Path entries, RaftLogCheck.Result r) throws IOException {
        try (FileChannel ch = FileChannel.open(entries, StandardOpenOption.WRITE)) {
            ch.truncate(r.validEnd());
            ch.force(true);
        }
        lowerCommitIndex(dir.resolve("metadata.raft"), r.lastGood());
    }

    /** The recorded reach, or 0; a damaged record of it is an error naming it. */
    static long read(Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        if (!Files.exists(f)) {
            return 0;
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(f));
        if (b.remaining() != 12 || b.getInt(8) != crc(b.getLong(0))) {
            throw new IOException(f + " is damaged: this member cannot tell how far its log must reach before it votes; "
                    + "move its directory " + dir + " aside and start it again to fetch the group's state");
        }
        return b.getLong(0);
    }

    /** The log reached the recorded reach: the member votes again. */
    static void lift(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE));
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private static void write(Path dir, long reach) throws IOException {
        AtomicFiles.replace(dir.resolve(FILE), ByteBuffer.allocate(12).putLong(reach).putInt(crc(reach)).flip());
    }

    private static int crc(long v) {
        CRC32C c = new CRC32C();
        c.update(ByteBuffer.allocate(8).putLong(v).flip());
        return (int) c.getValue();
    }

    /** jgroups-raft's metadata.raft starts with the commit index (a big-endian u64). */
    private static void lowerCommitIndex(Path metadata, long to) throws IOException {
        if (!Files.exists(metadata)) {
            return;
        }
        try (RandomAccessFile f = new RandomAccessFile(metadata.toFile(), "rw")) {
            if (f.length() >= 8 && f.readLong() > to) {
                f.seek(0);
                f.writeLong(to);
                f.getFD().sync();
            }
        }
    }
}
