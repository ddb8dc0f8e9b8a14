package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only log of numbered records in a directory of segment files, as Kafka, Ratis and etcd keep theirs:
 * records are appended with consecutive indexes, made durable by {@link #sync} (one {@code fdatasync} for all
 * the records appended since the last one: group commit is the caller's batching), read back by index, cut off
 * after an index (a divergent tail) and compacted before one (behind a snapshot). Format: {@link Segment}.
 *
 * <p>Guarantees (docs/durability.md, "Storage faults"):
 * <ul>
 *   <li>Every record {@link #sync}ed before a crash is there after {@link #open}, with its index and bytes (CRC-32C
 *       checked), unless the disk damaged it: then it is reported, never dropped ({@link #damage}).</li>
 *   <li><b>A torn write is told from a damaged disk.</b> A torn tail is damage in the last records, with no record
 *       that verifies after it and none the log had synced ({@link SyncMark}, and the {@code synced} field of every
 *       record): it is cut off at the last valid record, and a warning names the file, the offset and why. Any other
 *       damage is corruption: the records stay, {@link #read} refuses them, {@link #damage} lists them (with their
 *       meta when their header still verifies), and {@link #repair} rewrites them from a copy that verifies.</li>
 *   <li>A file whose header is an FTS log segment of another format version is refused, naming it.</li>
 *   <li>Indexes are consecutive across segments; records missing between two segments are reported as damage.</li>
 * </ul>
 * Any {@link IOException} from a write or a sync leaves the log in an unknown state: the caller must stop using
 * it (a replica fail-stops, naming the path). Not thread-safe: one writer, and reads under the same lock.
 */
public final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);
    static final String MARK = "synced.mark";
    /** Where an unproven tail is recorded, until the caller settles it ({@link #uncertainFrom}). */
    static final String UNCERTAIN = "uncertain.mark";

    private final Path dir;
    private final long segmentBytes;
    private final List<Segment> segments = new ArrayList<>();
    private final SyncStats stats = new SyncStats();
    private final TreeMap<Long, Damage> damage = new TreeMap<>();
    private SyncMark mark;
    private long unsynced;
    /** The last index made durable by a sync (every record written carries it). */
    private long syncedIndex;
    /** The first index of a tail cut after a power loss that may have been synced ({@link #uncertainFrom}). */
    private long uncertainFrom = Long.MAX_VALUE;

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
        AtomicFiles.createDirectories(dir);
        SegmentedLog log = new SegmentedLog(dir, segmentBytes);
        try {
            LogRecovery.recover(log, dir);
            log.mark = new SyncMark(dir.resolve(MARK));
            if (!log.segments.isEmpty()) {   // what recovery kept counts as synced: so says a mark of this boot
                log.mark.write(log.syncedIndex, true);
            }
        } catch (IOException | RuntimeException e) {
            log.closeQuietly();
            throw e;
        }
        return log;
    }

    List<Segment> segments() {
        return segments;
    }

    void damaged(Damage d) {
        damage.put(d.from(), d);
    }

    void syncedAtOpen(long index) {
        syncedIndex = index;
    }

    /** At open: the recorded unproven tail, if any ({@link LogRecovery}). */
    void uncertainAtOpen(long from) {
        uncertainFrom = from;
    }

    /**
     * The first index of a tail this log cut off although it could not prove the tail unsynced, or
     * {@link Long#MAX_VALUE}: after a power loss (its {@link SyncMark} of another boot) the mark may lag a sync, and
     * damage inside the batch synced last then looks like a torn write. The log ends before it, as after a torn write,
     * but what it held from there on may have been acknowledged: the caller must not count this log as lacking those
     * indexes until the group settled it ({@link #settleUncertain}). Recorded durably before the cut, and kept across
     * opens (the lowest one) until settled.
     */
    public long uncertainFrom() {
        return uncertainFrom;
    }

    /** The caller's group has settled what this log may have held after {@link #uncertainFrom}: forgets it, durably. */
    public void settleUncertain() throws IOException {
        if (uncertainFrom == Long.MAX_VALUE) {
            return;
        }
        Files.deleteIfExists(dir.resolve(UNCERTAIN));
        syncDir();
        uncertainFrom = Long.MAX_VALUE;
    }

    /** The index of the first record held, or {@code lastIndex() + 1} if none is. */
    public long firstIndex() {
        return segments.isEmpty() ? 1 : segments.get(0).firstIndex;
    }

    /** The index of the last record held (damaged ones included), or 0 if the log never held one. */
    public long lastIndex() {
        return segments.isEmpty() ? 0 : segments.get(segments.size() - 1).lastIndex();
    }

    public boolean isEmpty() {
        return segments.isEmpty() || lastIndex() < firstIndex();
    }

    /** The records that exist but do not verify, in index order (empty when the disk damaged nothing). */
    public List<Damage> damage() {
        return List.copyOf(damage.values());
    }

    /** The last index that the log knows it synced (the mark, and the records' own {@code synced} fields). */
    public long syncedIndex() {
        return syncedIndex;
    }

    /** {@link #append(long, byte[], byte[])} with no meta. */
    public void append(long index, byte[] payload) throws IOException {
        append(index, new byte[0], payload);
    }

    /**
     * Appends a record. The first record of an empty log may have any index of at least 1 (a log that starts
     * behind a snapshot); every other must be {@code lastIndex() + 1}. Durable only after {@link #sync}.
     */
    public void append(long index, byte[] meta, byte[] payload) throws IOException {
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
        last.append(index, meta, payload, syncedIndex);
        unsynced++;
    }

    /**
     * Makes every record appended so far durable: one {@code fdatasync} of the segment written to; then records the
     * synced index in the mark (not synced itself: it needs to survive a process crash; after a power loss it may lag,
     * and recovery then treats the batch synced last as unproven: {@link #uncertainFrom}).
     */
    public void sync() throws IOException {
        if (unsynced == 0 || segments.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        segments.get(segments.size() - 1).sync();
        stats.synced(unsynced, System.nanoTime() - t0);
        unsynced = 0;
        syncedIndex = lastIndex();
        mark.write(syncedIndex, false);
    }

    /** {@link #read(long)}'s payload. */
    public byte[] readPayload(long index) throws IOException {
        return read(index).payload();
    }

    /** The record at {@code index}, which must be held; {@link DamagedRecordException} if it does not verify. */
    public Record read(long index) throws IOException {
        Damage d = damageAt(index);
        if (d != null && d.meta() == null && !located(index)) {
            throw new DamagedRecordException(dir, index, null);   // between two segments: missing
        }
        return segmentOf(index).read(index);
    }

    private boolean located(long index) {
        for (Segment s : segments) {
            if (index >= s.firstIndex && index <= s.lastIndex()) {
                return true;
            }
        }
        return false;
    }

    private Segment segmentOf(long index) {
        for (int i = segments.size() - 1; i >= 0; i--) {
            Segment s = segments.get(i);
            if (index >= s.firstIndex) {
                if (index > s.lastIndex()) {
                    break;
                }
                return s;
            }
        }
        throw new IllegalArgumentException("index " + index + " is not held (" + firstIndex() + ".." + lastIndex() + ")");
    }

    /**
     * Rewrites damaged records from copies that verify elsewhere: each segment that holds one is written anew (to a
     * temporary file, synced, renamed into place, the directory synced), keeping every other record's bytes. A stretch
     * whose header is unreadable is replaced only if every record in it is given. Returns the records still damaged.
     */
    public List<Damage> repair(List<Record> copies) throws IOException {
        Map<Long, Record> byIndex = new TreeMap<>();
        for (Record r : copies) {
            if (damageAt(r.index()) != null) {
                byIndex.put(r.index(), r);
            }
        }
        for (Damage gap : damage()) {
            if (!located(gap.from()) && byIndex.keySet().containsAll(
                    java.util.stream.LongStream.rangeClosed(gap.from(), gap.to()).boxed().toList())) {
                fillGap(gap, byIndex);
            }
        }
        for (int i = 0; i < segments.size() && !byIndex.isEmpty(); i++) {
            Segment s = segments.get(i);
            Map<Long, Record> mine = new TreeMap<>(((TreeMap<Long, Record>) byIndex).subMap(s.firstIndex, true,
                    s.lastIndex(), true));
            if (!mine.isEmpty()) {
                segments.set(i, Rewrite.segment(s, mine, damage, Math.max(syncedIndex, lastIndex())));
                mine.keySet().forEach(byIndex::remove);
            }
        }
        return damage();
    }

    /** A segment of its own for records that were missing between two segments, written atomically. */
    private void fillGap(Damage gap, Map<Long, Record> byIndex) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(Segment.header(gap.from()).array());
        for (long i = gap.from(); i <= gap.to(); i++) {
            Record r = byIndex.remove(i);
            out.write(Segment.encode(i, r.meta(), r.payload(), Math.max(syncedIndex, lastIndex())).array());
        }
        Path p = dir.resolve(Segment.fileName(gap.from()));
        AtomicFiles.replace(p, ByteBuffer.wrap(out.toByteArray()));
        Segment s = Segment.open(p, gap.from(), new ArrayList<>());
        int at = 0;
        while (at < segments.size() && segments.get(at).firstIndex < gap.from()) {
            at++;
        }
        segments.add(at, s);
        damage.remove(gap.from());
    }

    /** The damage entry covering {@code index}, or null. */
    Damage damageAt(long index) {
        Map.Entry<Long, Damage> e = damage.floorEntry(index);
        return e != null && e.getValue().to() >= index ? e.getValue() : null;
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
        long kept = lastIndex();
        damage.tailMap(kept, false).clear();
        Damage straddling = damageAt(kept);
        if (straddling != null && straddling.to() > kept) {
            damage.put(straddling.from(), new Damage(straddling.from(), kept, straddling.meta()));
        }
        syncedIndex = Math.min(syncedIndex, kept);
        // Forced: a stale mark above the records appended next would make a torn one of them look like damage.
        mark.write(syncedIndex, true);
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
            damage.headMap(firstIndex()).clear();
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

    void closeQuietly() {
        for (Segment s : segments) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.debug("{}: close failed: {}", s.path, e.toString());
            }
        }
        if (mark != null) {
            try {
                mark.close();
            } catch (IOException e) {
                LOG.debug("{}: closing the mark failed: {}", dir, e.toString());
            }
        }
    }

    /** A file created or deleted is durable only once its directory is synced. */
    void syncDir() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** Lists the segment files in {@code dir}, oldest first. */
    static List<Path> segmentFiles(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        return files;
    }
}
