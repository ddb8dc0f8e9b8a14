package org.fts.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only log of numbered records in a directory of segment files, as Kafka, Ratis and etcd keep theirs:
 * records are appended with consecutive indexes, made durable by {@link #sync} (one {@code fdatasync} for all
 * the records appended since the last one: group commit is the caller's batching), read back by index, cut off
 * after an index (a divergent tail) and compacted before one (behind a snapshot). Format: {@link Segment}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every record {@link #sync}ed before a crash is there after {@link #open}, with its index and bytes
 *       (CRC-32C checked), unless the disk lost it: then the log refuses to open, naming the file.</li>
 *   <li>A torn tail (a crash in the middle of a write: a short or unchecksummed last record of the last
 *       segment) is cut off at the last valid record, and a warning names the file, the offset and why. The same
 *       in any earlier segment is not a torn write but a damaged disk: {@link #open} fails naming the file.</li>
 *   <li>A file whose header is not an FTS log segment of this format version is refused, naming it.</li>
 *   <li>Indexes are consecutive across segments; a gap between segments is refused, naming the files.</li>
 * </ul>
 * Any {@link IOException} from a write or a sync leaves the log in an unknown state: the caller must stop using
 * it (a replica fail-stops, naming the path). Not thread-safe: one writer, and reads under the same lock.
 */
public final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);

    private final Path dir;
    private final long segmentBytes;
    private final List<Segment> segments = new ArrayList<>();
    private final SyncStats stats = new SyncStats();
    private long unsynced;

    private SegmentedLog(Path dir, long segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /**
     * Opens the log in {@code dir} (created if need be), recovering it as the class comment says.
     *
     * @param segmentBytes a segment is closed and a new one started once it holds this many bytes
     */
    public static SegmentedLog open(Path dir, long segmentBytes) throws IOException {
        Files.createDirectories(dir);
        SegmentedLog log = new SegmentedLog(dir, segmentBytes);
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        try {
            for (int i = 0; i < files.size(); i++) {
                Segment.Tail[] tail = new Segment.Tail[1];
                Segment s = Segment.open(files.get(i), tail);
                log.segments.add(s);
                if (log.segments.size() > 1) {
                    Segment before = log.segments.get(log.segments.size() - 2);
                    if (s.firstIndex != before.lastIndex() + 1) {
                        throw new IOException(s.path + ": starts at index " + s.firstIndex + ", but " + before.path
                                + " ends at " + before.lastIndex() + " (records missing)");
                    }
                }
                if (tail[0] != null) {
                    if (i < files.size() - 1) {
                        throw new IOException(s.path + ": damaged at offset " + tail[0].offset() + " (" + tail[0].why()
                                + ") although later segments follow: not a torn write; the disk lost data");
                    }
                    LOG.warn("{}: cut off a torn tail at offset {}: {} bytes ({}); the log ends at index {}", s.path,
                            tail[0].offset(), tail[0].bytes(), tail[0].why(), s.lastIndex());
                    s.dropTail();
                }
            }
        } catch (IOException | RuntimeException e) {
            log.closeQuietly();
            throw e;
        }
        return log;
    }

    /** The index of the first record held, or {@code lastIndex() + 1} if none is. */
    public long firstIndex() {
        return segments.isEmpty() ? 1 : segments.get(0).firstIndex;
    }

    /** The index of the last record held, or 0 if the log never held one. */
    public long lastIndex() {
        return segments.isEmpty() ? 0 : segments.get(segments.size() - 1).lastIndex();
    }

    public boolean isEmpty() {
        return segments.isEmpty() || lastIndex() < firstIndex();
    }

    /**
     * Appends a record. The first record of an empty log may have any index of at least 1 (a log that starts
     * behind a snapshot); every other must be {@code lastIndex() + 1}. Durable only after {@link #sync}.
     */
    public void append(long index, byte[] payload) throws IOException {
        if (index < 1) {
            throw new IllegalArgumentException("index " + index + ": indexes start at 1");
        }
        if (!isEmpty() && index != lastIndex() + 1) {
            throw new IllegalArgumentException("index " + index + " appended after " + lastIndex());
        }
        Segment last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
        if (last == null || last.size() >= segmentBytes || (isEmpty() && last.firstIndex != index)) {
            if (last != null) {
                last.sync();
                if (last.count() == 0) {   // an empty segment at another index: replaced
                    last.close();
                    Files.delete(last.path);
                    segments.remove(segments.size() - 1);
                }
            }
            segments.add(Segment.create(dir, index));
            syncDir();
            last = segments.get(segments.size() - 1);
        }
        last.append(index, payload);
        unsynced++;
    }

    /** Makes every record appended so far durable: one {@code fdatasync} of the segment written to. */
    public void sync() throws IOException {
        if (unsynced == 0 || segments.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        segments.get(segments.size() - 1).sync();
        stats.synced(unsynced, System.nanoTime() - t0);
        unsynced = 0;
    }

    /** The record at {@code index}, which must be held. */
    public byte[] read(long index) throws IOException {
        for (int i = segments.size() - 1; i >= 0; i--) {
            Segment s = segments.get(i);
            if (index >= s.firstIndex) {
                return s.read(index);
            }
        }
        throw new IllegalArgumentException("index " + index + " is before the log's first, " + firstIndex());
    }

    /** Drops every record after {@code index}, durably (a tail the group's history does not continue). */
    public void truncateAfter(long index) throws IOException {
        while (!segments.isEmpty() && segments.get(segments.size() - 1).firstIndex > index + 1) {
            Segment s = segments.remove(segments.size() - 1);
            s.close();
            Files.delete(s.path);
        }
        if (!segments.isEmpty()) {
            segments.get(segments.size() - 1).truncateAfter(index);
        }
        syncDir();
        unsynced = 0;
    }

    /**
     * Deletes the segments whose every record is before {@code index} (a snapshot holds them); the segment that
     * holds {@code index}, and the last segment, stay.
     */
    public void compactBefore(long index) throws IOException {
        boolean deleted = false;
        while (segments.size() > 1 && segments.get(1).firstIndex <= index) {
            Segment s = segments.remove(0);
            s.close();
            Files.delete(s.path);
            deleted = true;
        }
        if (deleted) {
            syncDir();
        }
    }

    public SyncStats stats() {
        return stats;
    }

    public Path directory() {
        return dir;
    }

    /** The segment files, oldest first (tests, status). */
    public List<Path> files() {
        return segments.stream().map(s -> s.path).toList();
    }

    @Override
    public void close() throws IOException {
        sync();
        closeQuietly();
    }

    private void closeQuietly() {
        for (Segment s : segments) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.debug("{}: close failed: {}", s.path, e.toString());
            }
        }
    }

    /** A file created or deleted is durable only once its directory is synced. */
    private void syncDir() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
