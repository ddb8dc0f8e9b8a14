package org.fts.gc.jgroups;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;
import org.fts.gc.jgroups.Wire.Entry;
import org.fts.log.SegmentedLog;
import org.fts.log.SyncStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's write-ahead log ({@code fts.durability=log}, docs/durability.md): the entries it holds, in
 * {@link SegmentedLog} records indexed by gseq, and its {@link EpochMeta} (the ballot it promised and the epoch it
 * opened). Protocol threads {@link #append} without waiting for the disk; a writer thread appends what is queued
 * and syncs once for all of it (group commit), then raises {@link #durable()} and calls {@code onDurable}, which
 * sends the acknowledgement: a member acknowledges only what its disk holds.
 *
 * <p>An {@link IOException} (a full disk, an I/O error) stops the process ({@link FailStop}) with an error naming
 * the directory: a member that cannot tell what its disk holds must not acknowledge, nor serve.
 */
final class DurableLog implements AutoCloseable {
    /**
     * What a member persists besides its entries; {@code epochSeq} null when it never opened an epoch; {@code start}
     * the epoch's first position (its log holds the epoch's prefix only once it reaches {@code start - 1}).
     */
    record EpochMeta(long promised, long epochBallot, long epochView, MemberId epochSeq, boolean founding,
                     List<MemberId> members, long start) {
        static final EpochMeta NONE = new EpochMeta(0, 0, 0, null, false, List.of(), 0);
    }

    /** What {@link #open} found: the meta, the entries (in order), and the highest commit point they record. */
    record Loaded(EpochMeta meta, List<Entry> entries, long base, long commitHint) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(DurableLog.class);
    private static final long SEGMENT_BYTES = 64L << 20;

    private final Path dir;
    private final SegmentedLog log;
    private final EpochMetaFile meta;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Loaded loaded;
    /** Guards the log: the writer's appends and syncs, and truncations and reads from other threads. */
    private final Object io = new Object();
    /** Entries and their commit hints, queued for the writer; guarded by this object's monitor. */
    private final ArrayDeque<Object[]> pending = new ArrayDeque<>();
    private long appended;
    private volatile long durable;
    private volatile Runnable onDurable = () -> { };
    private volatile boolean closed;
    private Thread writer;

    private DurableLog(Path dir, SegmentedLog log, EpochMetaFile meta, FileChannel lockChannel, FileLock lock,
                       Loaded loaded) {
        this.dir = dir;
        this.log = log;
        this.meta = meta;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.loaded = loaded;
        this.appended = log.lastIndex();
        this.durable = appended;
    }

    /**
     * Opens (or creates) the log in {@code dir}, locks it against a second process, and reads it back.
     *
     * @throws UncheckedIOException naming the directory or file if it cannot be locked, read or trusted
     */
    static DurableLog open(Path dir) {
        FileChannel lockChannel = null;
        try {
            Files.createDirectories(dir);
            lockChannel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                lock = null;   // held by this JVM
            }
            if (lock == null) {
                throw new IOException(dir + " is in use by another process (its lock file is held)");
            }
            EpochMetaFile meta = new EpochMetaFile(dir.resolve("epoch.meta"));
            SegmentedLog log = SegmentedLog.open(dir.resolve("log"), SEGMENT_BYTES);
            List<Entry> entries = new ArrayList<>();
            long hint = 0;
            for (long i = log.firstIndex(); i <= log.lastIndex(); i++) {
                Object[] e = decode(i, log.read(i));
                entries.add((Entry) e[0]);
                hint = Math.max(hint, (Long) e[1]);
            }
            Loaded loaded = new Loaded(meta.read(), entries, log.isEmpty() ? log.lastIndex() : log.firstIndex() - 1,
                    Math.min(hint, log.lastIndex()));
            LOG.info("{}: log holds entries {} to {} (commit point at least {}); {}", dir, loaded.base() + 1,
                    log.lastIndex(), loaded.commitHint(), loaded.meta());
            return new DurableLog(dir, log, meta, lockChannel, lock, loaded);
        } catch (IOException | RuntimeException e) {
            if (lockChannel != null) {
                try {
                    lockChannel.close();
                } catch (IOException ignored) {
                    // closing after a failure
                }
            }
            throw new UncheckedIOException(new IOException("FTS durable log in " + dir + ": " + e.getMessage(), e));
        }
    }

    /**
     * The log of {@code self} in {@code group} as {@code durability} configures it, or null without one.
     *
     * @throws org.fts.gc.GroupException naming the directory and the key if it cannot be opened
     */
    static DurableLog openFor(org.fts.gc.Durability durability, String group, MemberId self) {
        if (!durability.log()) {
            return null;
        }
        try {
            return open(durability.dirOf(group, self.replica()));
        } catch (UncheckedIOException e) {
            throw new org.fts.gc.GroupException(self + ": " + e.getCause().getMessage() + " ("
                    + org.fts.gc.Durability.DIR.name() + ")", e);
        }
    }

    /** {@code GroupChannel.logFigures}: syncs, records per sync, p50 and p99 sync time. */
    String figures() {
        SyncStats s = log.stats();
        return String.format(java.util.Locale.ROOT, "syncs=%d records_per_sync=%.1f p50_us=%d p99_us=%d", s.syncs(),
                s.recordsPerSync(), s.percentileNanos(50) / 1000, s.percentileNanos(99) / 1000);
    }

    /** Starts the writer; {@code onDurable} runs on it after each sync that made more entries durable. */
    void start(Runnable onDurableCallback) {
        this.onDurable = onDurableCallback;
        writer = FailStop.threads("fts-log-" + dir.getFileName()).newThread(this::write);
        writer.start();
    }

    @Override
    public String toString() {
        return "FTS durable log in " + dir;
    }

    Loaded loaded() {
        return loaded;
    }

    /** Queues {@code e} (the next gseq), recorded with {@code commitHint}, a commit point known when it was held. */
    synchronized void append(Entry e, long commitHint) {
        pending.add(new Object[] {e, commitHint});
        notifyAll();
    }

    /** The last gseq the disk holds. */
    long durable() {
        return durable;
    }

    SyncStats stats() {
        return log.stats();
    }

    /** Durably drops every entry after {@code gseq} (a tail the group's history does not continue). */
    void truncateAfter(long gseq) {
        synchronized (io) {
            if (closed) {
                return;   // the channel is closing: nothing more is acknowledged
            }
            try {
                drainPending();
                log.truncateAfter(gseq);   // synced: what it keeps is durable
                appended = Math.min(appended, gseq);
                durable = appended;
            } catch (IOException e) {
                fail("truncating after " + gseq, e);
            }
        }
    }

    /** The entries in ({@code from}, {@code upTo}] the log holds (a repair the member no longer holds in memory). */
    List<Entry> read(long from, long upTo) {
        synchronized (io) {
            List<Entry> out = new ArrayList<>();
            if (closed) {
                return out;
            }
            try {   // only what is on disk: anything trimmed from memory is stable, so synced (no drain here)
                for (long i = Math.max(from + 1, log.firstIndex()); i <= Math.min(upTo, log.lastIndex()); i++) {
                    out.add((Entry) decode(i, log.read(i))[0]);
                }
            } catch (IOException e) {
                fail("reading " + from + ".." + upTo, e);
            }
            return out;
        }
    }

    /** Writes {@code m} durably (before the member reports its promise, or acknowledges an opened epoch). */
    void writeMeta(EpochMeta m) {
        try {
            meta.write(m);
        } catch (IOException e) {
            fail("writing " + meta.path(), e);
        }
    }

    private void write() {
        try {
            writeLoop();
        } catch (RuntimeException e) {
            if (!closed) {   // a writer that died silently would never let this member acknowledge again
                FailStop.fatal(new IllegalStateException(dir + ": the log's writer failed", e));
            }
        }
    }

    private void writeLoop() {
        while (!closed) {
            synchronized (this) {
                while (pending.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            boolean advanced;
            synchronized (io) {
                try {
                    drainPending();
                    log.sync();
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                    fail("appending and syncing", e);
                }
                advanced = appended > durable;   // under io: a truncation cannot come in between
                durable = appended;
            }
            if (advanced) {
                onDurable.run();
            }
        }
    }

    /** Under {@link #io}: appends every queued entry, in order. */
    private void drainPending() throws IOException {
        List<Object[]> batch = new ArrayList<>();
        synchronized (this) {
            batch.addAll(pending);
            pending.clear();
        }
        for (Object[] p : batch) {
            Entry e = (Entry) p[0];
            log.append(e.gseq(), encode(e, (Long) p[1]));
            appended = e.gseq();
        }
    }

    /** For tests: closes the files under the log, so that its next write fails as a dead disk's would. */
    void breakForTest() throws IOException {
        synchronized (io) {
            log.close();
        }
    }

    private void fail(String what, IOException e) {
        FailStop.fatal(new java.io.IOError(new IOException("FTS durable log in " + dir + ": " + what + " failed ("
                + e + "); this replica stops rather than acknowledge what its disk may not hold", e)));
        throw new UncheckedIOException(e);   // reached only where the fail-stop action returns (tests)
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        if (writer != null) {
            try {
                writer.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (io) {
            try {
                drainPending();
                log.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the log: {}", dir, e.toString());
            }
            try {
                lock.release();
                lockChannel.close();
            } catch (IOException e) {
                LOG.debug("{}: releasing the lock: {}", dir, e.toString());
            }
        }
    }

    static byte[] encode(Entry e, long commitHint) {
        byte[] o = e.origin().name().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + o.length + 16 + e.payload().length).put((byte) o.length).put(o)
                .putLong(e.oseq()).putLong(commitHint).put(e.payload()).array();
    }

    /** {entry, commit hint}. */
    static Object[] decode(long gseq, byte[] record) {
        ByteBuffer b = ByteBuffer.wrap(record);
        byte[] o = new byte[b.get() & 0xff];
        b.get(o);
        long oseq = b.getLong();
        long hint = b.getLong();
        byte[] payload = new byte[b.remaining()];
        b.get(payload);
        return new Object[] {new Entry(gseq, new MemberId(new String(o, StandardCharsets.UTF_8)), oseq, payload), hint};
    }
}
