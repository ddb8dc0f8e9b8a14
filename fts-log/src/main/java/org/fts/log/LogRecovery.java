package org.fts.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link SegmentedLog#open} reads a log back: it scans every segment, tells a torn tail (cut off) from damage
 * (kept and reported), and records how far the log knows it had synced.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    private LogRecovery() {
    }

    static void recover(SegmentedLog log, Path dir) throws IOException {
        List<Segment> segments = log.segments();
        List<List<Segment.Piece>> pieces = new ArrayList<>();
        SyncMark.Read mark = SyncMark.read(dir.resolve(SegmentedLog.MARK));
        long synced = mark.index();
        long uncertain = readUncertain(dir);
        for (Path p : SegmentedLog.segmentFiles(dir)) {
            List<Segment.Piece> mine = new ArrayList<>();
            Segment s = Segment.open(p, nameIndex(p), mine);
            if (!segments.isEmpty()) {
                Segment before = segments.get(segments.size() - 1);
                long due = before.lastIndex() + 1;
                if (s.firstIndex < due) {
                    s.close();
                    throw new java.io.IOException(s.path + ": starts at index " + s.firstIndex + ", but " + before.path
                            + " ends at " + before.lastIndex() + " (segments overlap)");
                }
                if (s.firstIndex > due) {
                    log.damaged(new Damage(due, s.firstIndex - 1, null));
                    LOG.warn("{}: records {}..{} are missing (no segment holds them; {} starts at {})", dir, due,
                            s.firstIndex - 1, s.path.getFileName(), s.firstIndex);
                }
            }
            segments.add(s);
            pieces.add(mine);
            for (Segment.Piece piece : mine) {
                if (piece.kind() != Segment.Kind.LOST) {
                    synced = Math.max(synced, piece.synced());
                }
            }
        }
        if (segments.isEmpty()) {
            log.syncedAtOpen(0);
            log.uncertainAtOpen(uncertain);
            return;
        }
        Segment tail = segments.get(segments.size() - 1);
        if (tail.lastIndex() < synced) {   // zeros (the file is filled ahead) or nothing where synced records were
            pieces.get(pieces.size() - 1).add(tail.lostTail(synced));
        }
        long cut = cutTornTail(tail, pieces.get(pieces.size() - 1), synced, mark.thisBoot(), dir, uncertain);
        log.uncertainAtOpen(Math.min(uncertain, cut));
        List<Damage> found = new ArrayList<>();
        for (List<Segment.Piece> mine : pieces) {
            for (Segment.Piece piece : mine) {
                if (piece.kind() != Segment.Kind.VALID) {
                    Damage d = new Damage(piece.first(), piece.last(),
                            piece.kind() == Segment.Kind.BAD_PAYLOAD ? piece.meta() : null);
                    log.damaged(d);
                    found.add(d);
                }
            }
        }
        if (!found.isEmpty()) {
            LOG.warn("{}: {} damaged ({} of them): a damaged disk, not a torn write (records that verify follow, or the "
                    + "log had synced up to {}); kept, to be repaired from a copy that verifies", dir, found, found.size(),
                    synced);
        }
        // Whatever is on disk now counts as synced from here on: force it, so that that is true after a power loss too.
        Segment last = segments.get(segments.size() - 1);
        last.sync();
        log.syncedAtOpen(log.lastIndex());
    }

    /**
     * Cuts the damage after the last record that verifies, if it is a torn write: in the last segment, with nothing
     * that verifies after it, and beyond everything the log had synced ({@code synced}). If the mark is of another
     * boot ({@code exact} false: a power loss, or a mark of the form before boot ids), it may lag the last sync, and the
     * damage may be in the batch synced last: the cut tail's first index is then recorded as uncertain, durably
     * before the cut, and returned; otherwise {@link Long#MAX_VALUE}.
     */
    private static long cutTornTail(Segment last, List<Segment.Piece> pieces, long synced, boolean exact, Path dir,
                                    long uncertain) throws IOException {
        int lastValid = -1;
        for (int i = 0; i < pieces.size(); i++) {
            if (pieces.get(i).kind() == Segment.Kind.VALID) {
                lastValid = i;
            }
        }
        if (lastValid == pieces.size() - 1) {
            return Long.MAX_VALUE;
        }
        Segment.Piece first = pieces.get(lastValid + 1);
        if (first.first() <= synced) {
            return Long.MAX_VALUE;   // the log had synced it: damage, reported
        }
        long bytes = last.size() - first.offset();
        String why = first.kind() == Segment.Kind.BAD_PAYLOAD ? "a checksum mismatch at index " + first.first()
                : "an unreadable or cut-short record at index " + first.first();
        if (!exact && first.first() < uncertain) {
            writeUncertain(dir, first.first());   // before the cut: a crash in between must not forget it
        }
        last.cutAt(first.offset(), first.first());
        if (exact) {
            LOG.warn("{}: cut off a torn tail at offset {}: {} bytes ({}); the log ends at index {}", last.path,
                    first.offset(), bytes, why, last.lastIndex());
        } else {
            LOG.warn("{}: cut off a torn tail at offset {}: {} bytes ({}); the log ends at index {}. Its sync mark is of "
                    + "another boot (a power loss), so it may lag the last sync and this may be damage to records "
                    + "synced and acknowledged: the log reports that it may have held entries from {} on, and the "
                    + "group counts them before going on without them", last.path, first.offset(), bytes, why,
                    last.lastIndex(), first.first());
        }
        pieces.subList(lastValid + 1, pieces.size()).clear();
        return exact ? Long.MAX_VALUE : first.first();
    }

    private static final byte[] UNCERTAIN_MAGIC = {'F', 'T', 'S', 'U'};

    /** The recorded unproven tail ({@code "FTSU" index:u64 crc:u32}), or {@link Long#MAX_VALUE}. */
    static long readUncertain(Path dir) throws IOException {
        Path f = dir.resolve(SegmentedLog.UNCERTAIN);
        if (!java.nio.file.Files.exists(f)) {
            return Long.MAX_VALUE;
        }
        byte[] b = java.nio.file.Files.readAllBytes(f);
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        if (b.length == 16 && bb.getInt(0) == java.nio.ByteBuffer.wrap(UNCERTAIN_MAGIC).getInt()) {
            c.update(b, 4, 8);
            if ((int) c.getValue() == bb.getInt(12)) {
                return bb.getLong(4);
            }
        }
        // it is written whole (replaced atomically, synced): anything else is a damaged disk, and forgetting it
        // could lose an acknowledged entry
        throw new IOException(f + ": damaged (" + b.length + " bytes that do not verify); it records that this log may "
                + "have held acknowledged entries it cut: move the log aside and start the replica again to take the "
                + "group's state");
    }

    private static void writeUncertain(Path dir, long from) throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16).put(UNCERTAIN_MAGIC).putLong(from);
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(b.array(), 4, 8);
        b.putInt((int) c.getValue()).flip();
        AtomicFiles.replace(dir.resolve(SegmentedLog.UNCERTAIN), b);
    }

    private static long nameIndex(Path p) throws IOException {
        String n = p.getFileName().toString();
        try {
            return Long.parseLong(n.substring(0, n.length() - ".log".length()));
        } catch (NumberFormatException e) {
            throw new IOException(p + ": not an FTS log segment (its name is not <first index>.log)", e);
        }
    }
}
