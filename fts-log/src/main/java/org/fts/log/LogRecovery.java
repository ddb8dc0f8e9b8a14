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
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);

    private LogRecovery() {
    }

    static void recover(SegmentedLog log, Path dir) throws IOException {
        List<Segment> segments = log.segments();
        List<List<Segment.Piece>> pieces = new ArrayList<>();
        long synced = SyncMark.read(dir.resolve(SegmentedLog.MARK));
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
            return;
        }
        Segment tail = segments.get(segments.size() - 1);
        if (tail.lastIndex() < synced) {   // zeros (the file is filled ahead) or nothing where synced records were
            pieces.get(pieces.size() - 1).add(tail.lostTail(synced));
        }
        cutTornTail(tail, pieces.get(pieces.size() - 1), synced);
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
     * that verifies after it, and beyond everything the log had synced ({@code synced}).
     */
    private static void cutTornTail(Segment last, List<Segment.Piece> pieces, long synced) throws IOException {
        int lastValid = -1;
        for (int i = 0; i < pieces.size(); i++) {
            if (pieces.get(i).kind() == Segment.Kind.VALID) {
                lastValid = i;
            }
        }
        if (lastValid == pieces.size() - 1) {
            return;
        }
        Segment.Piece first = pieces.get(lastValid + 1);
        if (first.first() <= synced) {
            return;   // the log had synced it: damage, reported
        }
        long bytes = last.size() - first.offset();
        String why = first.kind() == Segment.Kind.BAD_PAYLOAD ? "a checksum mismatch at index " + first.first()
                : "an unreadable or cut-short record at index " + first.first();
        last.cutAt(first.offset(), first.first());
        LOG.warn("{}: cut off a torn tail at offset {}: {} bytes ({}); the log ends at index {}", last.path,
                first.offset(), bytes, why, last.lastIndex());
        pieces.subList(lastValid + 1, pieces.size()).clear();
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
